/* options: -q */
BEGIN
{
	printf("%c%c|%c\n", 'o', 'k', 65);
	printf("[%5s][%-5s][%.2s][%5.2s][%-5.2s]\n", "abc", "abc", "abc", "abc", "abc");
	/* DTrace hands printf no precision of 0: %.0s prints the whole string. */
	printf("[%s][%3s][%.0s]\n", "", "", "abc");
	printf("[%-10s|%10s]\n", "left", "right");
	printf("%S\n", "a\tb\nc\\d\"e");
	printf("%S\n", "\001\177x");
	printf("[%5c][%-3c]\n", 'x', 'y');
	printf("%s%s\n", "con", "cat");
	exit(0);
}
