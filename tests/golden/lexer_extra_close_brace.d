/* options: -xerrtags */
/* Braces are counted in every lexer state: one "}" too many after a clause. */
BEGIN
{
	exit(0);
}
}
