/* options: -q */
struct pt { int x; int y; };
struct pt g;
struct pt h;

BEGIN
{
	g.x = 1;
	g.y = 2;
	h = g;
	b[g] = 7;
	c[3, g] = 8;
	printf("same bytes: %d %d\n", b[h], c[3, h]);
	h.y = 3;
	printf("other bytes: %d %d\n", b[h], c[3, h]);
	b[h] = 9;
	printf("both: %d %d\n", b[g], b[h]);
	@counts[g] = count();
	@counts[h] = count();
	@counts[g] = count();
	printa(@counts);
	exit(0);
}
