/* options: -q -x agghist */
BEGIN
{
	@c["sh"] = count();
	@c["sh"] = count();
	@c["bash"] = count();
	@c["bash"] = count();
	@c["bash"] = count();
	@c["bash"] = count();
	@c["bash"] = count();
	@c["bash"] = count();
	@s[1] = sum(-3);
	@s[2] = sum(5);
	@m["x"] = max(7);
	@a = avg(10);
	@a = avg(20);
	exit(0);
}
