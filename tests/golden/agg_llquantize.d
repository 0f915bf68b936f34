/* options: -q */
BEGIN
{
	@ll = llquantize(5, 10, 0, 2, 10);
	@ll = llquantize(50, 10, 0, 2, 10);
	@ll = llquantize(500, 10, 0, 2, 10);
	@ll = llquantize(5000, 10, 0, 2, 10);
	exit(0);
}
