/* options: -q */
/*
 * dtrace(1) marks an aggregation printed as printa() prints one of its
 * entries: a printa() that finds none leaves it to the printing at exit.
 * A joined printa() that prints a row marks every aggregation it joins.
 */
ERROR
{
	@a = count();
	@b[0] = sum(0);
	@c[0] = count();
	@d[0] = count();
}

BEGIN
{
	@c[2] = count();
	printa(@a);
	printa("@b[%d] = %@d\n", @b);
	printa("%d %@d %@d\n", @c, @d);
	exit(0);
}

END
{
	@a = count();
	@b[1] = sum(5);
	@d[3] = count();
}
