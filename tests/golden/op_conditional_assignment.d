/* options: -q */
BEGIN
{
	printf("%d\n", 1 ? 2 : 3 ? 4 : 5);
	printf("%d\n", 0 ? 2 : 0 ? 4 : 5);
	printf("%d\n", 0 ? 2 : 3 ? 4 : 5);
	x = 5;
	printf("%d\n", x > 3 ? x * 2 : x - 1);
	printf("%s\n", x == 5 ? "five" : "other");
	a = b = 7;
	printf("%d %d\n", a, b);
	a += b -= 2;
	printf("%d %d\n", a, b);
	x = 10;
	x *= 3;
	printf("%d ", x);
	x /= 4;
	printf("%d ", x);
	x %= 5;
	printf("%d ", x);
	x <<= 3;
	printf("%d ", x);
	x >>= 1;
	printf("%d ", x);
	x &= 6;
	printf("%d ", x);
	x |= 9;
	printf("%d ", x);
	x ^= 3;
	printf("%d ", x);
	x -= 12;
	printf("%d\n", x);
	i = 5;
	j = i++;
	k = ++i;
	printf("%d %d %d\n", i, j, k);
	j = i--;
	k = --i;
	printf("%d %d %d\n", i, j, k);
	z = (1, 2, 3);
	printf("%d\n", z);
	exit(0);
}
