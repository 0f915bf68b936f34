/* options: -q */
/*
 * exit() records its status, so it is a data-recording action for the rules
 * of speculative tracing: it may not follow commit( ).
 */
BEGIN
{
	s = speculation();
}

BEGIN
{
	commit(s);
	exit(0);
}
