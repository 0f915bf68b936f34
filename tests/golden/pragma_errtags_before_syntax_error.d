/* options: -q */
/* The errtags pragma applies to a syntax error later in the program. */
#pragma D option errtags

BEGIN
{
	trace(1) +;
}
