/* options: -q -x printsize=10 */
/*
 * print() records at most `printsize` bytes of a struct, union or array (D-REFERENCE.md
 * §11.3). Choice (as Oracle's libdtrace does): the members that were recorded whole
 * print as usual; the first member that was not prints as `...` and ends the layout;
 * the braces still open are then closed. A struct, union or array whose start was
 * recorded opens and shows the part that fits; scalars are never cut. A printsize
 * lowered by setopt() while tracing also limits what the later records show.
 */
struct pair {
	int first;
	int second;
};

struct wide {
	int a;
	struct pair p;
	int tail[4];
};

BEGIN
{
	this->w = (struct wide *)alloca(sizeof (struct wide));
	this->w->a = 1;
	this->w->p.first = 2;
	this->w->p.second = 3;
	print(*this->w);
	print(this->w->tail);
	print(this->w->a);
	setopt("printsize", "4");
	print(*this->w);
	exit(0);
}
