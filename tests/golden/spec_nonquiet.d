/* options:  */
BEGIN
{
	s = speculation();
}

BEGIN
{
	speculate(s);
	trace(42);
}

BEGIN
{
	trace("before");
}

BEGIN
{
	commit(s);
}

BEGIN
{
	exit(0);
}
