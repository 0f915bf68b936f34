/* options: -q */
struct pt { int x; int y; };
struct pt g;
struct pt a[int];

BEGIN
{
	printf("unassigned: %d %d\n", a[9].x, a[9].y);
	g.y = 2;
	a[1] = g;
	a[1].x = 10;
	a[1].y++;
	a[2].x = 20;
	self->k = 2;
	a[self->k].y = 21;
	printf("a[1]: %d %d, a[2]: %d %d, global %d %d\n", a[1].x, a[1].y, a[2].x, a[2].y, g.x, g.y);
	g = a[2];
	printf("back: %d %d\n", g.x, g.y);
	trace(a[1]);
	exit(0);
}
