/* options: -q */
/*
 * stackframes is a runtime integer option: 0 is a value libdtrace accepts,
 * from a pragma as from -x.
 */
#pragma D option stackframes=0

BEGIN
{
	printf("accepted\n");
	exit(0);
}
