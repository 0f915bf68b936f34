/* options: -q */
/* needs: Linux 6.4 (jumps longer than a 16-bit offset become gotol) */
/*
 * Forty strjoin(), substr() and index() calls in a row: a program so long that the
 * kernel's own rewriting of it would push 16-bit jump offsets out of range unless the
 * long jumps are relaxed first.
 */
BEGIN
{
	s = "a";
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 1), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 2), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 3), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 4), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 5), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 1), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 2), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 3), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 4), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 5), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 1), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 2), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 3), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 4), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 5), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 1), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 2), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 3), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 4), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 5), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 1), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 2), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 3), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 4), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 5), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 1), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 2), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 3), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 4), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 5), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 1), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 2), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 3), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 4), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 5), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 1), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 2), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 3), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 4), index(s, "bb"));
	s = strjoin(s, "b");
	printf("%s %d\n", substr(s, 1, 5), index(s, "bb"));
	exit(0);
}
