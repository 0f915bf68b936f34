/* options: -q */
extern int no_such_kernel_symbol;

BEGIN
{
	trace(no_such_kernel_symbol);
	exit(0);
}
