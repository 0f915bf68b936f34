/* options: -q */
/*
 * `&` of a global integer or pointer variable (a non-dynamic variable) gives
 * the address of its storage: stores through the pointer change the variable and
 * the variable's own stores show through the pointer.
 */
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
	exit(0);
}
