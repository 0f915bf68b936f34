/* options: -q */
BEGIN
{
	@["l-taraval"] = lquantize(-1, -2, 3, 1, -123);
	@["l-taraval"] = lquantize(0, -2, 3, 1, -123);
	@["l-taraval"] = lquantize(1, -2, 3, 1, 246);
	exit(0);
}
