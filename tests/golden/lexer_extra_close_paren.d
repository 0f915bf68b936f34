/* options: -xerrtags */
/*
 * DTrace's lexer counts parentheses in expressions and refuses a ")" that closes
 * none as soon as it reads it: the message has no "near" part.
 */
BEGIN
{
	trace(1));
}
