/* options: -q */
BEGIN
{
	x = *(int *)0;
	printf("not reached\n");
}

BEGIN
{
	printf("still tracing\n");
}

ERROR
{
	printf("ERROR: epid %d action %d offset %d fault %d addr %d\n", arg1, arg2, arg3, arg4, arg5);
}

BEGIN
{
	exit(0);
}
