/* options: -q -x strsize=8 */
BEGIN
{
	printf("%s\n", strjoin("abc", "de"));
}

BEGIN
{
	s = strjoin("abcd", "efghij");
	printf("not reached\n");
}

BEGIN
{
	printf("continued\n");
	exit(0);
}
