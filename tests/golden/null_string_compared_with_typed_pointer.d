/* options: -q -x errtags */
/*
 * A string is an array of char: a null pointer of another pointer type is not
 * comparable with it, only 0 and void * are.
 */
BEGIN
{
	s = "a";
	trace(s != (int *)0);
}
