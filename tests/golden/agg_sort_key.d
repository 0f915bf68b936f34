/* options: -q -x aggsortkey */
BEGIN
{
	@[3] = count();
	@[1] = count();
	@[1] = count();
	@[2] = count();
	@[2] = count();
	@[2] = count();
	@s["b"] = sum(1);
	@s["a"] = sum(5);
	@s["c"] = sum(3);
	@s["d"] = sum(3);
	exit(0);
}
