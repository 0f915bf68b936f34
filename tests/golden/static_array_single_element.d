/* options: -q */
/*
 * DTrace checks constant indexes only against arrays of more than one element (a
 * one-element array is C's idiom for a variable-length tail): an index past a
 * one-element array held in a D variable reads 0 and stores nothing.
 */
int a[1];

BEGIN
{
	a[0] = 5;
	a[3] = 1;
	printf("%d %d\n", a[3], a[0]);
	exit(0);
}
