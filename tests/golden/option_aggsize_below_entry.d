/* options: -q -x aggsize=8 */
BEGIN
{
	@counts[1, 2] = count();
	exit(0);
}
