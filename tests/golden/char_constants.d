/* options: -q */
BEGIN
{
	printf("%d %d %d %d\n", 'a', '\n', '\0', '\\');
	printf("%d %d %d\n", '\x41', '\101', '\t');
	printf("%d %d %d %d %d\n", '\a', '\b', '\f', '\r', '\v');
	printf("%d %d\n", 'ab', 'abcd');
	printf("%c%c%c\n", 'D', 'I', 'F');
	printf("%d %d\n", 'A' + 1, sizeof ('a'));
	printf("%c\n", 'z' - 25);
	printf("%d\n", '"');
	exit(0);
}
