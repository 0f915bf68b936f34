/* options: -x errtags */
/*
 * A member of a type that is only forward-declared is incomplete, as DTrace words it
 * for members: "incomplete struct/union/enum TYPE: NAME".
 */
struct s {
	int a;
	struct undefined b;
};

BEGIN
{
	exit(0);
}
