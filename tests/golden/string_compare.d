/* options: -q */
BEGIN
{
	s = "abc";
	printf("%d %d %d\n", s == "abc", s != "abc", "abc" == "abd");
	printf("%d %d %d\n", s < "abd", s > "ab", s >= "abc");
	printf("%d %d %d\n", s <= "abb", "B" < "a", "" < "a");
	t = "abc";
	printf("%d %d\n", s == t, s < t);
	u = strjoin("ab", "c");
	printf("%d\n", u == s);
	printf("%s\n", s < "abd" ? "less" : "not less");
}
BEGIN
/s == "abc"/
{
	printf("matched\n");
}
BEGIN
/s != "abc"/
{
	printf("not matched\n");
}
BEGIN
{
	exit(0);
}
