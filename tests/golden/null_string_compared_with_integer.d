/* options: -q -x errtags */
/*
 * A string compares with the null pointer constant 0 and with NULL, but with no other
 * integer.
 */
BEGIN
{
	s = "a";
	trace(s == 1);
}
