/* options: -q -x nolibs */
/*
 * NULL belongs to the language, not to the system library, so -x nolibs keeps it; a
 * program's own NULL would still win.
 */
BEGIN
{
	p = (char *)0;
	printf("%d\n", p == NULL);
	exit(0);
}
