/* options: -q -x agghist -x aggzoom */
BEGIN
{
	@c["sh"] = sum(4);
	@c["bash"] = sum(12);
	@c["zsh"] = sum(0);
	printa(@c);
	printa("%s %@d\n", @c);
	exit(0);
}
