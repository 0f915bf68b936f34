/* options: -xerrtags */
/* A "]" that closes no "[" is the lexer's error, not the parser's. */
BEGIN
{
	x[1]] = 2;
}
