/* options: -x errtags */
/*
 * normalize(), denormalize(), clear() and trunc() check their argument count
 * themselves, with their own wording: "N args passed" whatever N, and
 * trunc()'s bound as "no more than 2".
 */
BEGIN
{
	@a = count();
	normalize(@a);
}
