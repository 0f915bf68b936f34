/* options: -q */
#pragma D option cpu=100000

/*
 * The same refusal from a #pragma D option line is a D_PRAGMA_OPTSET compile error.
 */
BEGIN
{
	exit(0);
}
