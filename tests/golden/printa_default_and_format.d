/* options: -q */
BEGIN
{
	@c["x"] = count();
	@c["y"] = count();
	@c["y"] = count();
	@t["k", 1] = sum(7);
	printa(@c);
	printf("--\n");
	printa("%s=%@d\n", @c);
	printa("%@d %s\n", @c);
	printa("[%-4s] [%@5d]\n", @c);
	printa("%s %d -> %@d\n", @t);
	printa("%s only\n", @t);
	printa("@c = %@u\n", @c);
	exit(0);
}
