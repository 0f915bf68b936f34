/* options: -q */
union word { int i; char c[4]; short h[2]; };
struct tagged { int kind; union word w; };
union word u;
struct tagged t;
self union word su;
union word a[string];

BEGIN
{
	u.i = 0x44434241;
	printf("%c%c %x %x\n", u.c[0], u.c[3], u.h[0], u.h[1]);
	u.c[0] = 'z';
	printf("%x\n", u.i);
	t.w = u;
	t.kind = 1;
	t.w.h[1] = 0;
	printf("%d %x\n", t.kind, t.w.i);
	self->su.h[0] = 0x4241;
	printf("%s\n", stringof(self->su.c));
	a["k"] = u;
	a["k"].c[1] = 'y';
	printf("%x\n", a["k"].i);
	trace(u);
	exit(0);
}
