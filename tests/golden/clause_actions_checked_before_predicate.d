/* options: -xerrtags */
/*
 * DTrace checks a clause's actions before its predicate: when both are wrong, the
 * action's error is the one reported (an undefined name in an action would let the
 * predicate's error come first).
 */
BEGIN
/"a" * 2/
{
	trace("b" % 2);
}
