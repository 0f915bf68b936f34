/* options: -q */
BEGIN
{
	printf("%d %d\n", -8 >> 1, (unsigned)-8 >> 1);
	printf("%d %d\n", -8L >> 60, (unsigned long)-8 >> 60);
	printf("%d %d %d\n", 1 << 31, 1u << 31, 1L << 40);
	x = 1;
	printf("%d %d\n", x << 40, (long)x << 40);
	printf("%d\n", (char)1 << 7);
	printf("%d\n", 1 << 2L);
	s = 3;
	printf("%d %d\n", 1024 >> s, -1024 >> s);
	exit(0);
}
