/* options: -q */
BEGIN
{
	@avg["neg"] = avg(-5);
	@avg["neg"] = avg(2);
	@avg["pos"] = avg(7);
	@avg["pos"] = avg(8);
	@min["m"] = min(3);
	@min["m"] = min(-9223372036854775807L);
	@max["m"] = max(-3);
	@max["m"] = max(-4);
	exit(0);
}
