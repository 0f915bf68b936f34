/*
 * hello.d - the smallest useful D program: print a greeting with the time
 * and the process that runs it, then stop.
 *
 * Shows: BEGIN, printf with %Y and %d, exit(0).
 * Run:   dtrace -s hello.d
 */

#pragma D option quiet

BEGIN
{
	printf("Hello from D at %Y (dtrace pid %d)\n", walltimestamp, pid);
	exit(0);
}
