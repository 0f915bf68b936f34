/* options: -x errtags */
/* An array is not a scalar: ++ of a whole scalar array is D_OP_SCALAR. */
int a[5];

BEGIN
{
	a++;
	exit(0);
}
