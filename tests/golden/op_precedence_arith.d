/* options: -q */
BEGIN
{
	printf("%d\n", 1 + 2 * 3);
	printf("%d\n", (1 + 2) * 3);
	printf("%d\n", 10 - 4 - 3);
	printf("%d\n", 100 / 10 / 5);
	printf("%d\n", 100 / 10 * 5);
	printf("%d\n", 17 % 5 * 2);
	printf("%d\n", 2 + 3 % 2);
	printf("%d\n", 2 * 3 % 4);
	printf("%d\n", 1 + 2 * 3 << 1);
	printf("%d\n", -2 * -3);
	printf("%d\n", - -4);
	printf("%d\n", -3 + 5);
	printf("%d\n", ~0 + 1);
	printf("%d\n", !0 + !5);
	printf("%d\n", 7 - -2 * 3);
	exit(0);
}
