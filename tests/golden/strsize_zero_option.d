/* options: -q -x strsize=0 */
/* A string must hold at least one character and its NUL: strsize 0 is refused. */
BEGIN
{
	exit(0);
}
