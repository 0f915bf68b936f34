/* options: -q first second */
/*
 * Only the last macro argument must be referenced: a program that uses `$$2` may
 * leave `$1` alone.
 */
BEGIN
{
	printf("%s\n", $$2);
	exit(0);
}
