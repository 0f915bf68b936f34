/* options: -xerrtags */
/*
 * An inline whose value is not an integer constant is a variable that may not be
 * written: DTrace reports D_OP_WRITE. (An inline of an integer constant becomes that
 * constant as it is parsed, and assigning it is D_OP_LVAL.)
 */
inline string greeting = "hello";

BEGIN
{
	greeting = "bye";
	exit(0);
}
