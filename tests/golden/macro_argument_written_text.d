/* options: -q -x errtags */
/* DTrace quotes a macro argument as it was written. */
BEGIN
{
	trace($$01);
	exit(0);
}
