/* options: -q */
BEGIN
{
	@q = quantize(5);
	@l = lquantize(5, 0, 10, 1);
	@c = count();
	clear(@q);
	clear(@l);
	clear(@c);
	exit(0);
}
