/* options: -q -x nolibs -L user_libraries/chain */
/* -x nolibs leaves out the user's libraries as well as the system's. */
BEGIN
{
	printf("%d\n", CHAIN_C);
	exit(0);
}
