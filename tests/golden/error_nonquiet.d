/* options:  */
BEGIN
{
	x = *(int *)0;
}

ERROR
{
	trace(arg4);
}

BEGIN
{
	exit(0);
}
