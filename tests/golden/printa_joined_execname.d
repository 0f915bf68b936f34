/* options: -q */
/*
 * execname is keyed in fewer bytes than a string variable; printa() joins the two
 * aggregations by key all the same, and chains of joins agree too.
 */
BEGIN
{
	name = execname;
	@a[execname] = count();
	@a[execname] = count();
	@b[name] = sum(5);
	@c["other"] = max(7);
	printa("%s %@d %@d\n", @a, @b);
	printa(@a, @b);
	printa("%s %@d %@d\n", @b, @c);
	exit(0);
}
