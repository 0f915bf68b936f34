/* options: -q */
/*
 * Negating an unsigned constant keeps it within its type's size, as DTrace's parser
 * folds it: -1u is 0xffffffff (while ~0u keeps all 64 bits of the register).
 */
BEGIN
{
	printf("%d %d %d\n", -1u == 0xffffffff, -1u > 0xfffffffe, -1ul == 0xffffffffffffffff);
	printf("%d %d\n", -(unsigned short)1 == 65535, ~0u == 0xffffffff);
	printf("%u %u\n", -1u, -2u);
	exit(0);
}
