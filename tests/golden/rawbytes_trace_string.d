/* options: -x rawbytes -x strsize=20 */
/*
 * With rawbytes, trace() of a string dumps the whole record in hex: the string's
 * strsize bytes, zero after its NUL. Integers print as usual.
 */
BEGIN
{
	trace("abc");
	trace(7);
	exit(0);
}
