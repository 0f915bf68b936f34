/* options: -xerrtags */
/*
 * An error in an expression written over several lines is reported on the line
 * where the expression ends (DTrace's parser builds the node there): here the line
 * of the right operand.
 */
struct point { int x; int y; } origin;

BEGIN
{
	total = origin +
	    1;
}
