/* options: -q -x aggzoom */
BEGIN
{
	@q = quantize(1, 2);
	@q = quantize(2, 3);
	@q = quantize(4, 7);
	@l = lquantize(3, 0, 10, 5, -9);
	@l = lquantize(7, 0, 10, 5, 17);
	printa("%@d", @q);
	exit(0);
}
