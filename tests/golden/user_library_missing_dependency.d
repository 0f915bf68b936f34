/* options: -q -L user_libraries/missing */
/* A library depending on a file its directory lacks stops the compilation. */
BEGIN
{
	exit(0);
}
