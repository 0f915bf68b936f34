/* options: -q -x errtags */
BEGIN
{
	x = 1;
	x = "s";
}
