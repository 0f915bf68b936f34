/* options: -xerrtags */
/*
 * sizeof never evaluates its operand, so an action in it is no call in an expression;
 * stack()'s type (as _symaddr and _usymaddr) is a typedef of void in DTrace, of unknown
 * size.
 */
BEGIN
{
	trace(sizeof (stack()));
	exit(0);
}
