#pragma D option bufsize=0
BEGIN
{
	trace(1);
	exit(0);
}
