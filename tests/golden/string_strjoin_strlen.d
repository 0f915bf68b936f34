/* options: -q */
BEGIN
{
	printf("%s\n", strjoin("foo", "bar"));
	printf("[%s]\n", strjoin("", ""));
	printf("%d %d %d\n", strlen(""), strlen("hello"), strlen(strjoin("ab", "cd")));
	s = strjoin(strjoin("a", "b"), strjoin("c", "d"));
	printf("%s %d\n", s, strlen(s));
	x = strjoin("x", "");
	printf("%s\n", strjoin(x, s));
	exit(0);
}
