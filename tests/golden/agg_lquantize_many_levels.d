/* options: -q */
/*
 * lquantize() takes up to 65535 levels. Histograms of thousands of buckets print only
 * the rows around their non-zero buckets, like small ones (the kernel engine keeps them
 * in parts of 1024 buckets, since one per-CPU map value cannot hold them; buckets 1023
 * and 1024 of @boundary lie in two parts).
 */
BEGIN
{
	@small = lquantize(5, 0, 100000, 10);
	@small = lquantize(15, 0, 100000, 10, 2);
	@top = lquantize(99999, 0, 100000, 10);
	@top = lquantize(100000, 0, 100000, 10, 3);
	@widest = lquantize(655345, 0, 655350, 10);
	@widest = lquantize(655350, 0, 655350, 10, 4);
	@boundary = lquantize(10225, 0, 100000, 10);
	@boundary = lquantize(10235, 0, 100000, 10, 5);
	@keyed["a"] = lquantize(40000, 0, 100000, 10);
	@keyed["b"] = lquantize(81234, 0, 100000, 10);
	exit(0);
}
