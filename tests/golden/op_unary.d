/* options: -q */
BEGIN
{
	x = 5;
	printf("%d %d %d %d %d\n", -x, ~x, !x, +x, !!x);
	printf("%d %d\n", -(-x), ~~x);
	printf("%d %d\n", - x * 2, -(x * 2));
	printf("%d\n", ~x & 0xff);
	printf("%d\n", !x == 0);
	printf("%d %d\n", sizeof (x), sizeof x + 1);
	exit(0);
}
