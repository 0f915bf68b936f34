/* options: -xerrtags */
/*
 * "lu" is not a suffix DTrace's lexer knows: it reads 10l, then an identifier u.
 */
BEGIN
{
	x = 10lu;
}
