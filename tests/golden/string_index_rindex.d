/* options: -q */
BEGIN
{
	s = "hello";
	printf("%d %d %d %d\n", index(s, "l"), index(s, "l", 3), index(s, "l", 4), index(s, "lo"));
	printf("%d %d %d\n", index(s, "x"), index(s, "l", -5), index(s, "hellos"));
	printf("%d %d %d %d\n", index(s, "", 2), index(s, "", 5), index(s, "h", 5), index("", ""));
	printf("%d %d %d %d\n", rindex(s, "l"), rindex(s, "l", 2), rindex(s, "l", 1), rindex(s, "l", 100));
	printf("%d %d %d %d\n", rindex(s, "l", -1), rindex(s, "", -1), rindex(s, "lo", 4), rindex(s, "hello", 0));
	exit(0);
}
