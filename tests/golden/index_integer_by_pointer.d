/* options: -q */
/*
 * E1[E2] is *(E1 + E2) as in C: an integer indexed by a pointer reads the pointer's
 * element.
 */
BEGIN
{
	p = (int *)alloca(3 * sizeof (int));
	p[0] = 10;
	p[1] = 20;
	p[2] = 30;
	printf("%d %d %d\n", 0[p], 1[p], 2[p]);
	exit(0);
}
