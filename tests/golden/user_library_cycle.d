/* options: -q -L user_libraries/cycle */
/* Libraries depending on each other in a cycle stop the compilation. */
BEGIN
{
	exit(0);
}
