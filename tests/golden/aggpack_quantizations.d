/* options: -q -x aggpack */
BEGIN
{
	@q["a"] = quantize(1);
	@q["a"] = quantize(4, 3);
	@q["b"] = quantize(2, 2);
	@l[1] = lquantize(3, 0, 10, 5);
	@l[1] = lquantize(7, 0, 10, 5);
	@l[2] = lquantize(-4, 0, 10, 5, 3);
	@ll = llquantize(5, 10, 0, 2, 10);
	exit(0);
}
