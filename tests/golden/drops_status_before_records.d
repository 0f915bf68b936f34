/* options: -q -x droptags */
/*
 * dtrace(1) reads the status (failed speculations, errors in ERROR enablings,
 * in that order) before it consumes the buffers that hold the runtime error
 * reports and the output.
 */
ERROR
{
	*(char *)NULL;
}

BEGIN
{
	*(char *)NULL;
}

BEGIN
{
	a = speculation();
	b = speculation();
	printf("done\n");
	exit(0);
}
