/* options: -x amin=Stable/Stable/Common */
BEGIN
{
	trace(htons(1));
	exit(0);
}
