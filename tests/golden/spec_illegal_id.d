/* options: -q */
BEGIN
{
	commit(1024);
}

BEGIN
{
	printf("continued\n");
	exit(0);
}
