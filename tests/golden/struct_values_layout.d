/* options: -q */
/*
 * Struct values of DTrace-layout sizes (17 and 5 bytes, no tail padding; bit-fields a
 * byte each) stored in every class of variable, copied, traced and printed.
 */
struct s { char c; long l; char d; };
struct t { int a; char b; };
struct s g;
struct s h;
self struct t st;
struct t as[int];
BEGIN
{
	g.c = 'x'; g.l = 0x1122334455667788; g.d = 'y';
	h = g;
	h.d = 'z';
	self->st.a = 7; self->st.b = 'q';
	as[3] = self->st;
	as[3].b = 'r';
	this->v = h;
	printf("%d %d %d %d\n", sizeof(g), sizeof(self->st), sizeof(as[3]), sizeof(this->v));
	printf("%c %x %c %c\n", h.c, h.l, h.d, g.d);
	printf("%d %c %d %c\n", as[3].a, as[3].b, self->st.a, self->st.b);
	trace(g);
	trace(as[3]);
	print(h);
	print(as[3]);
	print(this->v);
}

struct flags { unsigned int f:3; unsigned int g:5; int s:4; char after; };
struct flags fl;

BEGIN
{
	fl.f = 5;
	fl.g = 17;
	fl.s = -2;
	fl.after = 'k';
	printf("%d %d %d %c %d\n", fl.f, fl.g, fl.s, fl.after, sizeof (fl));
	trace(fl);
	print(fl);
}

BEGIN
{
	exit(0);
}
