/* options: -q -x cpu=1 */
/*
 * With the cpu option, tracing happens on that CPU only: BEGIN and END fire there,
 * even though dtrace runs bound to CPU 0 here.
 */
BEGIN
{
	printf("BEGIN on %d\n", cpu);
	exit(0);
}

END
{
	printf("END on %d\n", cpu);
}
