/* options: -q -x nolibs */
/* With -x nolibs the system library is not loaded, so its names are unknown. */
BEGIN
{
	trace(ENOENT);
	exit(0);
}
