/* options: -q -x errtags */
BEGIN
{
	trace(y);
}
