/* options: -x nosuchoption=1 */
BEGIN
{
	exit(0);
}
