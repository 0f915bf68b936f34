/* options: -xerrtags */
/* DTrace declares a struct when its parser reads the { that opens the body, so a
   redeclaration is reported on that line. */
struct point {
	int x;
};
struct point
{
	int y;
};
BEGIN { exit(0); }
