/* options: -q */
/*
 * alloca() may allocate scratchsize - 8 bytes per clause (256 by default), each
 * allocation rounded up to 8: past them it faults with "out of scratch space",
 * whatever string results use, and the next clause starts with all of it again.
 */
BEGIN
{
	p = alloca(200);
	n = 56;
	q = alloca(n);
	printf("fits\n");
}

BEGIN
{
	p = alloca(250);
	n = 1;
	q = alloca(n);
	printf("not printed\n");
}

BEGIN
{
	p = alloca(256);
	printf("again\n");
	exit(0);
}

ERROR
{
	printf("fault %d\n", arg4);
}
