/* options: -q -x errtags */
BEGIN
{
	/* The void value of an action is a type error before the action is refused in an expression. */
	trace(trace(1));
}
