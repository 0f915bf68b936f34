/* options: -x errtags */
/*
 * A later lquantize() whose levels end elsewhere does not match: the message
 * gives the limits where the levels end (base + levels * step).
 */
BEGIN
{
	@a = lquantize(1, 0, 10, 3);
	@a = lquantize(1, 0, 13, 3);
}
