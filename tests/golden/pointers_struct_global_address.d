/* options: -q */
/*
 * `&` of a global struct or union (a non-dynamic variable) points at the variable's
 * storage: stores through the pointer change the variable, the variable's own stores
 * show through the pointer, and member addresses are offsets from it.
 */
struct point {
	int x;
	char tag;
	long y;
};
union word {
	int i;
	char c[4];
};
struct point pt;
union word w;

BEGIN
{
	p = &pt;
	p->x = 3;
	pt.y = 8;
	printf("%d %d %d\n", pt.x, p->y, (char *)&pt.y - (char *)p);
	printf("%d %d\n", p == &pt, &pt.tag == &p->tag);
	q = &w;
	q->i = 0x41424344;
	printf("%c %d\n", w.c[0], sizeof (*q));
	exit(0);
}
