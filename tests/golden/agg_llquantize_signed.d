/* options: -q */
BEGIN
{
	@ll = llquantize(-5, 10, 0, 1, 10);
	@ll = llquantize(-50, 10, 0, 1, 10);
	@ll = llquantize(5, 10, 0, 1, 10);
	@inc = llquantize(7, 10, 0, 1, 10, 3);
	exit(0);
}
