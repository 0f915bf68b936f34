/* options: -q -xerrtags -x scratchsize=64 */
BEGIN
{
	x = alloca(100);
	exit(0);
}
