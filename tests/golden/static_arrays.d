/* options: -q */
int a[5];
char c[3];

BEGIN
{
	a[0] = 1;
	a[4] = 5;
	i = 2;
	a[i] = 3;
	a[i + 1]++;
	a[4] += 10;
	printf("%d %d %d %d %d\n", a[0], a[1], a[2], a[3], a[4]);
	printf("%d %d\n", sizeof (a), sizeof (c));
	c[1] = 300;
	printf("%d\n", c[1]);
	/* An index outside the array (known only at run time) reads 0 and stores nothing. */
	i = 5;
	a[i] = 99;
	printf("%d %d\n", a[i], a[4]);
	j = -1;
	printf("%d\n", a[j]);
}

END
{
	printf("%d\n", a[2]);
}

BEGIN
{
	exit(0);
}
