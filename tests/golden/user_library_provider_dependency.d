/* options: -q -L user_libraries/provider */
/*
 * A library depending on a provider this machine lacks is skipped silently, and so
 * is one depending on it; the others load.
 */
BEGIN
{
	printf("%d\n", PROVIDER_C);
	exit(0);
}
