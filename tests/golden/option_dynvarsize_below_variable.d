/* options: -q */
#pragma D option dynvarsize=4
BEGIN
{
	values["key"] = 1;
	exit(0);
}
