/* options: -q */
/*
 * Type names scoped with a backquote: `` `int `` and D`int are D's own types; a C base
 * type scoped by the kernel's module (vmlinux`int) is the same type as D's.
 */
BEGIN
{
	printf("%d %d %d\n", sizeof (`int), sizeof (D`long), sizeof (vmlinux`int));
	printf("%d %d %d\n", (vmlinux`char)300, (`short)70000, (vmlinux`long)-1);
	exit(0);
}
