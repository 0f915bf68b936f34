/* options: -x bufsize=8 */
BEGIN
{
	trace(1);
	exit(0);
}
