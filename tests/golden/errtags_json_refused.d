/* options: -q -x errtags */
/*
 * json() (illumos: an element of JSON text) is refused when the program is compiled,
 * not at run time.
 */
BEGIN
{
	printf("%s\n", json("{\"a\": 1}", "a"));
	exit(0);
}
