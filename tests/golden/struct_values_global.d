/* options: -q */
struct inner { short a; short b; };
struct pt { int x; int y; struct inner in; char name[8]; long arr[3]; };
struct pt g;
struct pt h;

BEGIN
{
	printf("unassigned: %d %d %d\n", g.x, g.in.b, g.arr[2]);
	g.x = 1;
	g.y = 2;
	g.in.a = -3;
	g.in.b = 4;
	g.arr[2] = 0x123456789;
	g.name[0] = 'h';
	g.name[1] = 'i';
	g.x++;
	g.y += 40;
	printf("members: %d %d %d %d %x %s\n", g.x, g.y, g.in.a, g.in.b, g.arr[2], stringof(g.name));
	h = g;
	h.x = 100;
	printf("copy: %d %d %d, original %d\n", h.x, h.y, h.in.a, g.x);
	this->i = 1;
	g.arr[this->i] = 77;
	printf("indexed: %d %d %d\n", g.arr[0], g.arr[1], g.arr[2] == 0x123456789);
	trace(g.in);
	exit(0);
}
