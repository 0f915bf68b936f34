/* options: -q */
BEGIN
{
	@a["k1"] = count();
	@a["k1"] = count();
	@a["k2"] = count();
	@b["k1"] = sum(10);
	@b["k2"] = sum(20);
	@b["k0"] = sum(1);
	printa("%s %@d %@d\n", @a, @b);
	printa(@a, @b);
	exit(0);
}
