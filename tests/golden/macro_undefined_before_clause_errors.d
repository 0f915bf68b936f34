/* options: -x errtags */
/*
 * DTrace's lexer replaces macro variables as it reads the program, so an undefined
 * `$3` in END is reported before BEGIN's incompatible assignment.
 */
BEGIN
{
	x = "a";
	x = 1;
}

END
{
	trace($3);
}
