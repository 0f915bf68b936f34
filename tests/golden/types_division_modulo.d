/* options: -q */
BEGIN
{
	a = -7;
	b = 2;
	c = -2;
	d = 7;
	printf("%d %d %d %d\n", a / b, a % b, d / c, d % c);
	printf("%d %d\n", a / c, a % c);
	u = (unsigned)-7;
	printf("%d %d\n", u / 2, u % 10);
	printf("%u\n", -7L / 2UL);
	printf("%d\n", (unsigned char)250 / (char)-2);
	printf("%d %d\n", -7 / 2, -7 % 2);
	printf("%d\n", (unsigned)-7 / 2);
	printf("%d\n", -9223372036854775807L / 3);
	exit(0);
}
