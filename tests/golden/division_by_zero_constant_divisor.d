/* options: -xerrtags */
/*
 * A divisor folded to zero while parsing (here a cast of a constant) is D_DIV_ZERO,
 * reported at the divisor's line.
 */
BEGIN
{
	x = 10;
	x %=
	    (char)256;
}
