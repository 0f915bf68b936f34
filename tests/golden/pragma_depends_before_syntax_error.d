/* options: -q -x errtags */
/*
 * A dependency pragma is checked when its line is lexed, before the rest of
 * the program is parsed.
 */
BEGIN
{
#pragma D depends_on provider nonesuch
	x = 0128;
}
