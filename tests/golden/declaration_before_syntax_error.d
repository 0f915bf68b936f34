/* options: -q -x errtags */
/*
 * DTrace declares each declaration as it parses it, so a redeclaration is
 * reported before a syntax error that follows it.
 */
int x;
char x;

BEGIN
{
	trace(1) +;
}
