/* options: -q */
/*
 * Only a divisor that DTrace's parser folds to a constant zero is a compile error
 * (D_DIV_ZERO). A divisor that is zero once the clause is checked (an inline, an
 * enumerator) divides at run time and faults.
 */
inline int ZERO = 0;
enum e { Z };

BEGIN
{
	trace(5 % ZERO);
}

BEGIN
{
	trace(5 / Z);
}

BEGIN
{
	x = 7;
	trace(x / ZERO);
}

BEGIN
{
	printf("done\n");
	exit(0);
}
