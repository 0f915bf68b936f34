/* options: -q -x droptags */
/*
 * An aggregation buffer too small for a second entry still holds the first
 * one (DTrace's buffer always has room for one): the other keys are
 * aggregation drops.
 */
#pragma D option aggsize=64

BEGIN
{
	@a[1] = count();
	@a[2] = count();
	@a[3] = count();
	@a[1] = count();
	exit(0);
}
