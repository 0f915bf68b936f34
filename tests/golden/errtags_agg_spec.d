/* options: -q -x errtags */
BEGIN
{
	speculate(1);
	@a = count();
}
