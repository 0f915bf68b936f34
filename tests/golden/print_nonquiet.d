/* options:  */
/*
 * print() without -q: the layout starts on a line of its own after the record prefix,
 * and each print() of the clause starts on its own line; the record then ends with its
 * newline as every non-quiet record does. Choice: DTrace for Linux puts the printed
 * object's address (`0x… = *`) after the record prefix and indents the layout under
 * the data column; we print no address (a value print() records from a variable or an
 * expression has none worth showing) and do not indent.
 */
struct point {
	int x;
	int y;
};

BEGIN
{
	this->p = (struct point *)alloca(sizeof (struct point));
	this->p->x = 3;
	this->p->y = -4;
	print(*this->p);
	print(this->p->x);
	trace(5);
	print((struct point *)0);
	exit(0);
}
