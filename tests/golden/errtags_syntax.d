/* options: -q -x errtags */
BEGIN
{
	x = ;
}
