/* options: -q -x strsize=8 */
BEGIN
{
	s = "abcdefghij";
	printf("%s %d\n", s, strlen(s));
	t = "abcdefgXYZ";
	printf("%d\n", s == t);
	printf("%s\n", strjoin("abc", "de"));
	exit(0);
}
