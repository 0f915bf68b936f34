/* options: -q */
BEGIN
{
	x = -1;
	y = 1u;
	printf("%d\n", x + y);
	printf("%d\n", -1 + 0u);
	printf("%d\n", -1 + 0L);
	printf("%d\n", (char)100 + (char)100);
	printf("%d\n", (unsigned char)200 + (unsigned char)100);
	printf("%d\n", (short)30000 + (short)30000);
	printf("%d\n", (char)100 + 100);
	printf("%d\n", 2147483647 + 1);
	printf("%d\n", 2147483647 + 1L);
	printf("%d\n", 0xffffffff + 1);
	printf("%d\n", 4294967295 + 1);
	printf("%d\n", 1u + -2L);
	printf("%d\n", 1UL + -2L);
	printf("%d\n", (unsigned short)1 - (short)2);
	exit(0);
}
