/* options: -q */
BEGIN
{
	@c["a"] = sum(10);
	@c["b"] = sum(20);
	@c["c"] = sum(30);
	normalize(@c, 10);
	printa(@c);
	denormalize(@c);
	printa(@c);
	trunc(@c, 2);
	printa(@c);
	trunc(@c, -1);
	printa(@c);
	clear(@c);
	printa(@c);
	trunc(@c);
	printa(@c);
	printf("done\n");
	@h = lquantize(1, 0, 4, 1, 4);
	@h = lquantize(2, 0, 4, 1, 2);
	normalize(@h, 2);
	printa(@h);
	exit(0);
}
