/* options: -q */
/*
 * DTrace folds ! of an integer constant in place, keeping the constant's type; ! of
 * any other value is an int.
 */
BEGIN
{
	printf("%d %d %d %d\n", sizeof (!0ul), sizeof (!(char)1), !5L, sizeof (!timestamp));
	exit(0);
}
