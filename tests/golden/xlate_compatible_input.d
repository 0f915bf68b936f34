/* options: -q */
/*
 * A translator's parameter has the translator's input type: translating a value of a
 * compatible type (a void * here) reads it as the input struct.
 */
struct in { int a; long b; };
struct out { long sum; };

translator struct out < struct in *p > {
	sum = p->a + p->b;
};

BEGIN
{
	p = (struct in *)alloca(sizeof (struct in));
	p->a = 2;
	p->b = 40;
	v = (void *)p;
	printf("%d\n", xlate <struct out>(v).sum);
	printf("%d\n", xlate <struct out *>(v)->sum);
	exit(0);
}
