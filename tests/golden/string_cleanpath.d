/* options: -q */
BEGIN
{
	printf("%s\n", cleanpath("/foo//bar/./baz/../qux"));
	printf("%s\n", cleanpath("/a/b/../../c"));
	printf("%s\n", cleanpath("/x/./y"));
	printf("%s\n", cleanpath("/already/clean"));
	exit(0);
}
