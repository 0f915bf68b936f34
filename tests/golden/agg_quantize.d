/* options: -q */
BEGIN
{
	@q = quantize(0);
	@q = quantize(1);
	@q = quantize(2);
	@q = quantize(3);
	@q = quantize(5);
	@q = quantize(-1);
	@q = quantize(-3);
	@big = quantize(1000);
	@big = quantize(1024);
	@big = quantize(1L << 20);
	exit(0);
}
