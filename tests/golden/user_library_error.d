/* options: -q -L user_libraries/broken */
/* An error in a library file is reported at its place in the file. */
BEGIN
{
	exit(0);
}
