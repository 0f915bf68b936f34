/* options: -q */
/*
 * A global array is a value of its array type, as DTrace types it: a char array prints
 * as a string with trace() and printf("%s"), sizeof gives the whole array, and the
 * array decays to a pointer to its first element in pointer arithmetic, comparisons
 * and when assigned to a new variable.
 */
char c[8];
int ia[4];

BEGIN
{
	c[0] = 'h';
	c[1] = 'i';
	ia[1] = 7;
	printf("%s|\n", c);
	trace(c);
	this->p = c;
	this->q = ia;
	printf("\n%c %c %d %d\n", *this->p, *(c + 1), *(ia + 1), this->q[1]);
	printf("%d %d %d %d\n", &c[1] - c, c == &c[0], sizeof (c), sizeof (ia));
	printf("%s %d\n", stringof(c), &ia[3] - ia);
	exit(0);
}
