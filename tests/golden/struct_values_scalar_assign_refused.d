/* options: -q */
struct pt { int x; int y; };
struct pt g;

BEGIN
{
	g = 1;
	exit(0);
}
