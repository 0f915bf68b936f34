/* options: -q -x errtags */
BEGIN
{
	printa(1);
}
