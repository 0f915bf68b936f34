/* options: -q -x bufpolicy=fill -x bufsize=64 */
/*
 * Under the fill policy DTrace reserves room in the principal buffer for
 * every END record; a buffer smaller than that reserve is refused when
 * tracing is enabled.
 */
BEGIN
{
	exit(0);
}

END
{
	printf("%d %d %d %d\n", 1, 2, 3, 4);
}

END
{
	printf("%d %d %d %d\n", 5, 6, 7, 8);
}

END
{
	printf("%d %d %d %d\n", 9, 10, 11, 12);
}
