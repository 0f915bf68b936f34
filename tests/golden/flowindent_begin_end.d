/* options: -F */
BEGIN
{
	trace(1);
	exit(0);
}

END
{
}
