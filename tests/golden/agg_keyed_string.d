/* options: -q */
BEGIN
{
	@["b"] = count();
	@["a"] = count();
	@["b"] = count();
	@["c"] = count();
	@multi["x", 2] = sum(10);
	@multi["x", 1] = sum(10);
	@multi["w", 3] = sum(20);
	exit(0);
}
