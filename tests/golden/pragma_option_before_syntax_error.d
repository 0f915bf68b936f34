/* options: -q */
/*
 * DTrace sets an option pragma while it lexes the program, so an option it
 * refuses is the error, not the syntax error on a later line.
 */
#pragma D option nonesuch=1

BEGIN
{
	trace(1) +;
}
