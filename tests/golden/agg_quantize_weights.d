/* options: -q */
BEGIN
{
	@w = quantize(8, 3);
	@w = quantize(1, 1);
	@n = quantize(1, -2);
	@n = quantize(4, -1);
	exit(0);
}
