/* options:  */
BEGIN
{
}

BEGIN
{
	x = 1;
}

END
{
}

BEGIN
{
	exit(0);
}

END
{
	trace(x);
}
