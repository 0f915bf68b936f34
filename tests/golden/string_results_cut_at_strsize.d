/* options: -q -x strsize=16 */
/*
 * String subroutines whose result would be longer than strsize give its first
 * strsize - 1 characters (toupper and tolower stop there; lltostr's text is cut when
 * it is recorded), not an empty string.
 */
BEGIN
{
	printf("[%s]\n", toupper("abcdefghijklmnopqrstuvwxyz"));
	printf("[%s]\n", tolower("ABCDEFGHIJKLMNOPQRSTUVWXYZ"));
	printf("[%s]\n", lltostr(-1234567890123456789));
	printf("[%s]\n", lltostr(0x7fffffffffffffff, 16));
	printf("[%s]\n", lltostr(1023, 2));
	exit(0);
}
