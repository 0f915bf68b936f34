/* options:  */
#pragma D option quiet
#pragma D option strsize=4

BEGIN
{
	s = "abcdef";
	printf("%s %d\n", s, sizeof (s));
	exit(0);
}
