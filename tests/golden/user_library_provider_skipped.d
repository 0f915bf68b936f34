/* options: -q -L user_libraries/provider */
BEGIN
{
	printf("%d\n", PROVIDER_B);
	exit(0);
}
