/* options: -q */
BEGIN
{
	printf("[%s][%s][%s]\n", toupper("abC1"), tolower("ABc-Z"), toupper(""));
	printf("%d %d %d\n", strtoll("123"), strtoll("-42"), strtoll("  7"));
	printf("%d %d %d\n", strtoll("ff", 16), strtoll("0x1f", 16), strtoll("077", 8));
	printf("%d %d\n", strtoll("12abc"), strtoll(""));
	exit(0);
}
