/* options: -q */
BEGIN
{
	@[1] = sum(5);
	@[2] = sum(3);
	@[3] = sum(9);
	@[-1] = sum(3);
	@[0] = sum(0);
	@big[1L << 40] = count();
	@big[-5L] = count();
	@big[-5L] = count();
	@sh[(short)-2] = count();
	@ch[(char)-2] = count();
	exit(0);
}
