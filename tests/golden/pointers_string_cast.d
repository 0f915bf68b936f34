/* options: -q */
/*
 * A pointer may be cast to string (as `(string)copyin(addr, n)` is written): the
 * bytes it points at are read as a string. bcopy() fills alloca() memory.
 */
BEGIN
{
	p = alloca(8);
	bcopy((void *)"hey", p, 4);
	s = (string)p;
	c = (char *)p;
	printf("[%s] %d [%s]\n", s, strlen(s), (string)(c + 1));
	exit(0);
}
