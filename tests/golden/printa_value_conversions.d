/* options: -q */
/*
 * printa()'s %@ conversions take any conversion a 64-bit integer fits: uint64_t
 * for count(), int64_t for the other functions.
 */
BEGIN
{
	@n = count();
	@s = sum(-1);
	printa("%@d|%@i|%@u|%@x|%@X|%@o|%@lu|%@llx|%@5.3d|%@-4d|\n", @n);
	printa("%@d|%@i|%@u|%@x|%@ld|%@lld|%@llX|%@+d|\n", @s);
	exit(0);
}
