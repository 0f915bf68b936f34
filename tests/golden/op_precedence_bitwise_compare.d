/* options: -q */
BEGIN
{
	printf("%d\n", 1 << 2 + 1);
	printf("%d\n", 1 << 2 < 5);
	printf("%d\n", 256 >> 2 >> 1);
	printf("%d\n", 6 & 3 == 3);
	printf("%d\n", (6 & 3) == 2);
	printf("%d\n", 1 | 2 ^ 3 & 4);
	printf("%d\n", 5 ^ 1 | 8);
	printf("%d\n", 12 & 10 | 1);
	printf("%d\n", 2 < 3 == 1);
	printf("%d\n", 3 > 2 > 1);
	printf("%d\n", 1 == 1 != 0);
	printf("%d\n", 4 | 1 == 1);
	printf("%d\n", 3 ^ 3 < 4);
	printf("%d\n", 1 + 1 == 2 & 4 > 3);
	exit(0);
}
