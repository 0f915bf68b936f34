/* options: -q */
/*
 * A struct held in a dynamic variable (a thread-local here) has no fixed address:
 * `&` of it is refused. (A global struct's address is taken as any non-dynamic
 * variable's: pointers_struct_global_address.)
 */
struct pt { int x; int y; };
self struct pt t;

BEGIN
{
	this->p = &self->t;
	exit(0);
}
