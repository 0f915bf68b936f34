/* options: -q */
/*
 * Signed division at the edges, computed at run time: the quotient truncates toward
 * zero, the remainder takes the dividend's sign, and INT64_MIN / -1 wraps.
 */
BEGIN
{
	min = -9223372036854775807L - 1;
	minus_one = -1;
	three = 3;
	printf("%d %d\n", min / minus_one, min % minus_one);
	printf("%d %d\n", min / three, min % three);
	printf("%d %d\n", minus_one / min, minus_one % min);
	printf("%d %d\n", min / min, three / -three);
	exit(0);
}
