/* options: -x errtags */
/*
 * A name the program declared with typedef is a type name wherever it appears, so it
 * cannot also be assigned as a variable.
 */
typedef int t;

BEGIN
{
	t = 1;
}
