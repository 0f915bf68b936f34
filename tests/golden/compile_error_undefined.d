/* options: -q */
BEGIN
{
	trace(y);
}
