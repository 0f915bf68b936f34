/* options: -xerrtags */
/*
 * An inline whose value folds to an integer constant (through other such inlines and
 * enumerators too) is replaced by that constant as DTrace parses it: incrementing it
 * is D_OP_LVAL.
 */
enum base { BASE = 1 };
inline int first = 3;
inline int second = first * 2 + BASE;

BEGIN
{
	second++;
	exit(0);
}
