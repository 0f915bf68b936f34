/* options: -q */
/*
 * sizeof never evaluates its operand: sizeof of an object of a kernel type reached
 * through a pointer reads no kernel memory, so the user-space engine runs it too.
 */
BEGIN
{
	printf("%d %d\n", sizeof (*curthread) > 100, sizeof (curthread->pid));
	exit(0);
}
