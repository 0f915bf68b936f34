/* options: -x bufsize=4q */
BEGIN
{
	exit(0);
}
