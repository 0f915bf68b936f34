/* options: -xerrtags */
/*
 * An element of an inline array is not writable (D_OP_WRITE), once its keys match
 * the inline's parameters.
 */
inline int twice[int n] = n * 2;

BEGIN
{
	twice[3] = 7;
	exit(0);
}
