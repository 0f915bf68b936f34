/* options: -q */
/*
 * sizeof of expressions is the size of their type, without evaluating them: subroutine
 * results (size_t, int, string of strsize, pointers), and an increment that never runs.
 */
BEGIN
{
	printf("%d %d %d %d %d %d\n", sizeof (strlen("abc")), sizeof (rand()),
	    sizeof (strjoin("a", "b")), sizeof (substr("abc", 1)), sizeof (lltostr(1)),
	    sizeof (progenyof(1)));
	printf("%d %d %d\n", sizeof (alloca(4)), sizeof (basename("a")), sizeof (htonl(1)));
	x = 1;
	printf("%d %d\n", sizeof (x++), x);
	exit(0);
}
