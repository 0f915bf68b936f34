/* options: -x errtags */
/*
 * A '*' width takes its argument before a '.*' precision; the message names
 * the dynamic part whose argument is not an integer.
 */
BEGIN
{
	printf("%*.*d\n", 5, "x", 1);
}
