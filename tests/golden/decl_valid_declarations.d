/* options: -q */
/* Declarations DTrace accepts: tags, typedef chains, qualifiers, pointers to
   functions, anonymous aggregates, nested tags, keyed arrays and scoped variables. */
struct node { int value; char name[10]; struct node *next; };
struct node nodes[5];
int *const constant_pointer;
int (*handlers[2])(int, char *);
typedef unsigned long long u64_t;
typedef u64_t counter_t;
counter_t total;
struct { int x, y; } point;
enum { ONE = 1, TWO } number;
struct outer { struct inner { int q; } in; int r; } o;
struct inner standalone;
long unsigned lu;
struct forward;
struct forward *forward_pointer;
self struct node *current;
self int per_thread[int];
this int scratch;
string names[int, string];
BEGIN
{
	point.x = 1;
	o.in.q = 5;
	names[1, "a"] = "first";
	printf("%d %d %d %d %d %s\n", point.x, o.in.q, sizeof (o), TWO,
	    sizeof (counter_t), names[1, "a"]);
	exit(0);
}
