/* options: -q */
/*
 * Only an assigned enumerator value is checked against INT_MAX: an implicit one is
 * the previous value plus one in C int arithmetic.
 */
enum wrapping {
	LAST_INT = 0x7fffffff,
	AFTER_LAST
};

BEGIN
{
	printf("%d %d\n", LAST_INT, AFTER_LAST);
	exit(0);
}
