/* options: -q */
struct flags { int x; unsigned int f:3; unsigned int g:5; int s:4; unsigned long big:40; };
struct flags g;
self struct flags t;
struct flags a[int];

BEGIN
{
	g.f = 5;
	g.g = 31;
	g.s = -3;
	g.big = 0xffffffffff;
	g.f++;
	printf("global: %d %d %d %x %d\n", g.f, g.g, g.s, g.big, g.x);
	g.f = 9;
	printf("truncated: %d %d\n", g.f, g.g);
	self->t.g = 17;
	printf("thread-local: %d %d\n", self->t.f, self->t.g);
	a[0].s = -8;
	a[0].f = 2;
	printf("associative: %d %d\n", a[0].s, a[0].f);
	this->c = g;
	this->c.g = 0;
	printf("clause-local: %d %d %d\n", this->c.f, this->c.g, this->c.s);
	trace(g);
	exit(0);
}
