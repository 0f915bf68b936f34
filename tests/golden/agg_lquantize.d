/* options: -q */
BEGIN
{
	@l = lquantize(-1, 0, 10, 2);
	@l = lquantize(0, 0, 10, 2);
	@l = lquantize(3, 0, 10, 2);
	@l = lquantize(3, 0, 10, 2);
	@l = lquantize(9, 0, 10, 2);
	@l = lquantize(10, 0, 10, 2);
	@l = lquantize(15, 0, 10, 2);
	@w = lquantize(3, 0, 4, 1, 5);
	@d = lquantize(25, 0, 100);
	exit(0);
}
