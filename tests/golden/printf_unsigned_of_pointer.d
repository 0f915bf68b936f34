/* options: -q */
/*
 * %o, %u, %x and %X print a pointer argument as the unsigned number it is, as
 * DTrace accepts them; %p is the pointer's own conversion.
 */
BEGIN
{
	p = (int *)0x1234;
	printf("%x %X %#x %o %u %p\n", p, (char *)0xbeef, (void *)255, (long *)8, p, p);
	printf("%-8x|%08x|\n", p, p);
	exit(0);
}
