/* options: -q */
/*
 * `&` of a global integer, pointer or struct variable (a non-dynamic variable) gives
 * the address of its storage: stores through the pointer change the variable and
 * the variable's own stores show through the pointer.
 */
struct foo {
	int a;
	char b;
	long c;
};

struct foo s;
int *ip;
int var;

BEGIN
{
	ip = &var;
	*ip = 10;
	printf("var: %d, *ip: %d\n", var, *ip);
	var = 20;
	printf("var: %d, *ip: %d\n", var, *ip);

	x = 3;
	px = &x;
	*px += 4;
	x++;
	printf("%d %d %d\n", x, *px, px == &x);
	q = (char *)px;
	*q = 2;
	printf("%d\n", x);

	sp = &s;
	sp->a = 5;
	sp->c = -9;
	s.b = 'x';
	printf("%d %c %d %d\n", s.a, sp->b, s.c, sp->c);
	exit(0);
}
