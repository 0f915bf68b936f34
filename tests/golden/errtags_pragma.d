/* options: -q */
#pragma D option errtags
BEGIN
{
	x = 1 % 0;
}
