/* options: -q -x droptags */
/*
 * Dynamic-variable space too small for a second element still holds the
 * first one, as DTrace's always has room for one chunk; a deleted element's
 * space is reused at once.
 */
#pragma D option dynvarsize=64

BEGIN
{
	a[1] = 1;
	a[2] = 2;
	a[3] = 3;
	printf("%d %d %d\n", a[1], a[2], a[3]);
	a[1] = 0;
	a[4] = 4;
	printf("%d %d\n", a[1], a[4]);
	exit(0);
}
