/* options: -q */
/*
 * sizeof of a string constant is its length plus the terminating NUL (DTrace sizes a
 * string node by its text), while a string variable or the string type is strsize.
 * A $$N operand is a string constant too.
 */
BEGIN
{
	s = "hello";
	printf("%d %d %d\n", sizeof ("hello"), sizeof (""), sizeof ("a\0bc"));
	printf("%d %d %d\n", sizeof (s), sizeof (string), sizeof ($$0));
	exit(0);
}
