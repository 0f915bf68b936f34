/* options: -q -x errtags */
/* print() of a value whose type has size 0 is D_PRINT_SIZE (DTrace for Linux). */
struct empty {
};

BEGIN
{
	this->e = (struct empty *)alloca(8);
	print(*this->e);
	exit(0);
}
