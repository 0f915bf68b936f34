/* options: -q -x specsize=40 */
BEGIN
{
	s = speculation();
}

BEGIN
{
	speculate(s);
	printf("%s\n", "this string record is larger than the whole speculation buffer");
}

BEGIN
{
	speculate(s);
	trace(1);
}

BEGIN
{
	commit(s);
}

BEGIN
{
	exit(0);
}
