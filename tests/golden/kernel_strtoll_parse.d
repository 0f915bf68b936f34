/* options: -q */
/* strtoll() from blanks, signs, prefixes and every base. */
BEGIN
{
	printf("%d %d %d %d\n", strtoll("123"), strtoll("  -42abc"), strtoll("\t+7"), strtoll(""));
	printf("%d %d %d %d\n", strtoll("0x1F", 16), strtoll("1f", 16), strtoll("0xg", 16), strtoll("777", 8));
	printf("%d %d %d\n", strtoll("zz", 36), strtoll("101", 2), strtoll("9223372036854775808"));
	printf("%d %d\n", strtoll("12", 10), strtoll("-", 10));
	exit(0);
}
