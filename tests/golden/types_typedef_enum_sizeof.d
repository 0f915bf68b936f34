/* options: -q */
/* sizeof of typedef chains, enums and variables of every class; enumerator values. */
typedef int myint;
typedef myint myint2;
typedef myint2 *myptr;
typedef struct foo { int a; char b; } foo_t;
typedef foo_t foo2_t;
enum e { A, B = 10, C, D = -1 };
enum e2 { X = 0x7fffffff };
typedef enum e e_t;
enum e ev;
int i;
char carr[8];
int iarr[5];
self int si;
int as[int];
BEGIN
{
	printf("%d %d %d %d %d\n", sizeof (myint), sizeof (myint2), sizeof (myptr), sizeof (foo_t), sizeof (foo2_t));
	printf("%d %d %d %d\n", A, B, C, D);
	printf("%d %d %d\n", sizeof (enum e), sizeof (e_t), sizeof (ev));
	ev = C;
	printf("%d %d\n", ev, ev == C);
	trace(ev);
	trace(C);
	this->x = 3;
	self->si = 4;
	as[1] = 5;
	printf("\n%d %d %d %d %d %d %d\n", sizeof (i), sizeof (carr), sizeof (iarr), sizeof (this->x), sizeof (self->si), sizeof (as[1]), sizeof (iarr[2]));
	printf("%d %d %d\n", sizeof (`int), sizeof (`char *), sizeof (struct foo));
	printf("%d %d %d\n", sizeof i, sizeof carr, sizeof iarr[0]);
	exit(0);
}
