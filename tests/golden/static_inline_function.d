/* options: -q */
/* A C function definition is not D, in the program itself (headers' are skipped). */
static inline int
twice(int x)
{
	return (x * 2);
}

BEGIN
{
	exit(0);
}
