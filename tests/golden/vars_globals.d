/* options: -q */
int n;
string s;
long l;

BEGIN
{
	printf("%d [%s] %d\n", n, s, l);
	n = 0x100000005LL;
	s = "set";
	l = -1;
	g = "implicit";
	c = 'c';
	printf("%d %s %d %s %d\n", n, s, l, g, c);
}

END
{
	printf("%d %s %d %s\n", n, s, l, g);
}

BEGIN
{
	n++;
	exit(0);
}
