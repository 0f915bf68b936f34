/* options: -q */
struct pt { int x; int y; };
struct pt g;

BEGIN
{
	this->p = &g;
	exit(0);
}
