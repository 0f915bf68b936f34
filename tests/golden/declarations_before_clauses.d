/* options: -q */
/*
 * DTrace handles every declaration while it parses the program and checks the clauses
 * afterwards, so a clause may use an inline and a variable declared after it.
 */
BEGIN
{
	y = 7;
	printf("%d %d\n", x, y);
	exit(0);
}

inline int x = 3;
int y;
