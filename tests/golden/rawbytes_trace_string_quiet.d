/* options: -q -x rawbytes -x strsize=18 */
BEGIN
{
	trace("hello, world");
	printf("%s\n", "plain");
	exit(0);
}
