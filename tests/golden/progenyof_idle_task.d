/* options: -q */
/*
 * progenyof() is true of the process itself and of every ancestor up to the idle task
 * (pid 0, above init), and false of a pid that is none of them.
 */
BEGIN
{
	printf("%d %d %d %d\n", progenyof($pid), progenyof(1), progenyof(0), progenyof(-1));
	exit(0);
}
