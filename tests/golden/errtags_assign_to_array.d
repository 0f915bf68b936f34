/* options: -x errtags */
/*
 * A scalar array is a variable of array type: assigning to it as a whole is
 * D_OP_ARRFUN, naming the array type.
 */
char s[8];

BEGIN
{
	s = "abc";
	exit(0);
}
