/* options: -q -x errtags */
BEGIN
{
	printf("%d\n", count());
}
