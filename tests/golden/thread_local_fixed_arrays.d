/* options: -q */
/*
 * Fixed arrays held in thread-local variables: they read as zeros until assigned,
 * element stores (by constant or run-time index, compound or increment, into arrays
 * of structs too) rewrite the whole variable, and an index out of range at run time
 * reads 0 and stores nothing.
 */
struct pt { int x; int y; };
self int a[4];
self struct pt ps[3];
self char name[8];
BEGIN
{
	printf("%d %d\n", self->a[1], self->ps[2].y);
	self->a[0] = 10;
	self->a[3] = 13;
	i = 2;
	self->a[i] = 12;
	self->a[i]++;
	self->a[1] += 5;
	j = 9;
	self->a[j] = 99;
	printf("%d %d %d %d %d\n", self->a[0], self->a[1], self->a[2], self->a[3], self->a[j]);
	self->ps[1].x = 7;
	self->ps[i].y = 8;
	printf("%d %d %d\n", self->ps[1].x, self->ps[2].y, self->ps[0].x);
	self->name[0] = 'o';
	self->name[1] = 'k';
	printf("%s %d\n", stringof(self->name), sizeof (self->a));
	exit(0);
}
