/* options: -q */
/*
 * lquantize() keeps its base, its step and the number of whole levels
 * between base and limit: lquantize(x, 0, 11, 3) has three levels, so its
 * overflow row starts at 9, and a later use with limit 10 (also three
 * levels) is the same declaration.
 */
BEGIN
{
	@a = lquantize(4, 0, 11, 3);
	@a = lquantize(10, 0, 10, 3);
	exit(0);
}
