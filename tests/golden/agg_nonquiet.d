/* options:  */
BEGIN
{
	@a = count();
	printa(@a);
	@b["key"] = sum(3);
	exit(0);
}
