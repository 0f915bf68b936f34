/* options: -v */
/* -v prints the stability report on standard output even when quiet is set: quiet
   suppresses dtrace's notices ("matched 1 probe"), not the report. */
#pragma D option quiet

BEGIN
{
	trace(1);
	exit(0);
}
