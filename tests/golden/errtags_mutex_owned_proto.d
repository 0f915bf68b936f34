/* options: -q -x errtags */
BEGIN
{
	mutex_owned();
}
