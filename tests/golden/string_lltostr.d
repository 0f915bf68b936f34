/* options: -q */
BEGIN
{
	printf("%s %s %s\n", lltostr(0), lltostr(-123), lltostr(9223372036854775807));
	printf("%s %s %s\n", lltostr(255, 16), lltostr(8, 8), lltostr(5, 2));
	printf("%s %s %s\n", lltostr(35, 36), lltostr(0, 16), lltostr(0, 8));
	printf("%s\n", lltostr(-1, 16));
	printf("%s\n", lltostr(-9223372036854775807L - 1));
	printf("%s %s\n", lltostr(-5, 10), lltostr(100, 10));
	exit(0);
}
