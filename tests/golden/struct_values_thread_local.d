/* options: -q */
struct pt { int x; int y; char tag[4]; };
struct pt g;
self struct pt t;
self struct pt u;
self struct pt w;

BEGIN
{
	printf("unassigned: %d %d\n", self->u.x, self->u.y);
	self->t.y = 3;
	self->t.x++;
	self->t.y *= 5;
	printf("member-wise: %d %d\n", self->t.x, self->t.y);
	g.x = 7;
	g.y = 8;
	self->w = g;
	self->w.y = 80;
	printf("copied: %d %d, global %d\n", self->w.x, self->w.y, g.y);
	g = self->t;
	printf("back: %d %d\n", g.x, g.y);
	trace(self->w);
	self->w = 0;
	printf("\ndeleted: %d %d\n", self->w.x, self->w.y);
	exit(0);
}
