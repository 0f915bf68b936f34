/* options: -q */
/*
 * DTrace's output is bytes, not text: a byte >= 0x80 from %c, from a %s argument, from
 * the literal text of the format, or from a traced string reaches the output as that
 * byte. Widths count bytes, as C's printf does.
 */
BEGIN
{
	printf("%c|%s|\xfc|%5s|%-4s|\n", 251, "\xfb", "\xe9", "\xc3\xa9");
	trace("\xfa\n");
	exit(0);
}
