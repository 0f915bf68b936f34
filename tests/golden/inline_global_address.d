/* options: -q */
/* An inline's value may take the address of a global, as a clause may: the global
   is kept in memory and the inline reads and writes through the pointer. */
int x;
inline int *xp = &x;
BEGIN
{
	x = 3;
	printf("%d\n", *xp);
	*xp = 7;
	printf("%d %d\n", x, xp == &x);
	exit(0);
}
