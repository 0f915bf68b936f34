/* options: -q -x aggpack -x aggzoom -x encoding=utf8 */
BEGIN
{
	@ = quantize(-1);
	@ = quantize(1, 2);
	exit(0);
}
