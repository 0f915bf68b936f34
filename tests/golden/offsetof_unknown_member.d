/* options: -xerrtags */
/* offsetof() of a name that is not a member: DTrace reports its type library's error. */
struct s { int a; };

BEGIN
{
	trace(offsetof(struct s, b));
}
