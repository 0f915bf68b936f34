/* options: -q */
/*
 * Integer suffixes as DTrace's lexer matches them: an optional u, then up to two l's
 * in either case; the suffix picks where the search for the constant's type starts.
 */
BEGIN
{
	printf("%d %d %d %d %d\n", sizeof (1u), sizeof (1l), sizeof (1Ul), sizeof (1lL),
	    sizeof (1ULL));
	printf("%d %d %d\n", sizeof (0xffffffffu), sizeof (0x100000000u), sizeof (0x1l));
	printf("%u %d %x\n", 10ul, 0777L, 0x1fULL);
	exit(0);
}
