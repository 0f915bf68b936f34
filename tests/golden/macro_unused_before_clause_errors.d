/* options: -x errtags 7 */
/*
 * The last macro argument must be referenced; DTrace checks it once the program is
 * parsed, before any clause, so the error comes before BEGIN's incompatible
 * assignment.
 */
BEGIN
{
	x = "a";
	x = 1;
}
