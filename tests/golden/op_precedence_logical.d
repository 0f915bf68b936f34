/* options: -q */
BEGIN
{
	printf("%d\n", 1 || 0 && 0);
	printf("%d\n", 0 && 1 || 1);
	printf("%d\n", 1 ^^ 1 && 0);
	printf("%d\n", 1 || 1 ^^ 1);
	printf("%d\n", 0 ^^ 0 || 1);
	printf("%d\n", 1 | 2 && 0);
	printf("%d\n", 2 ^^ 3);
	printf("%d\n", 0 ^^ 7);
	printf("%d\n", !1 || !0);
	printf("%d\n", !!5);
	printf("%d\n", 1 ^^ 1 ^^ 1);
	x = 0;
	y = 0 && (x = 1);
	z = 1 || (x = 2);
	printf("%d %d %d\n", x, y, z);
	w = 1 && (x = 3);
	printf("%d %d\n", x, w);
	exit(0);
}
