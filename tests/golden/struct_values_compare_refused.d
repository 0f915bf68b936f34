/* options: -q */
struct pt { int x; int y; };
struct pt g;
struct pt h;

BEGIN
{
	printf("%d\n", g == h);
	exit(0);
}
