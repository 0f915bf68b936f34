/* options: -q */
BEGIN
{
	@a["x"] = avg(3);
	@a["x"] = avg(4);
	@s = stddev(2);
	@s = stddev(4);
	@q["k"] = quantize(3);
	printa("%s avg %@d\n", @a);
	printa("sd %@d\n", @s);
	printa("%s:%@d|\n", @q);
	exit(0);
}
