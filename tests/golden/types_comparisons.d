/* options: -q */
BEGIN
{
	printf("%d %d\n", -1 < 1u, -1 < 1);
	printf("%d %d\n", -1L < 1u, -1 > 0UL);
	x = -5;
	y = 3u;
	printf("%d %d %d %d\n", x < y, x > y, x <= y, x >= y);
	z = -5L;
	printf("%d %d\n", z < 3, z < 3UL);
	printf("%d %d\n", 3 == 3L, 4294967295 == -1);
	exit(0);
}
