/* options: -xerrtags */
/*
 * An action naming an undefined variable makes DTrace check the predicate first, so
 * the predicate's error is reported.
 */
BEGIN
/"a" * 2/
{
	trace(nosuchvariable);
}
