/* options: -q -x errtags */
BEGIN
{
	x = 1 / 0;
}
