/* options: -q */
/*
 * A string or an array passed where a subroutine takes a pointer is the address of
 * its first element, as DTrace's pointer compatibility has it (`void *` takes any).
 */
char name[8];

BEGIN
{
	this->buf = (char *)alloca(16);
	bcopy("hello", this->buf, 6);
	printf("%s\n", stringof(this->buf));
	name[0] = 'd'; name[1] = 'i'; name[2] = 'f';
	bcopy(name, this->buf + 5, 4);
	printf("%s\n", stringof(this->buf));
	exit(0);
}
