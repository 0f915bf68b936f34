/* options: -q */
BEGIN
{
	s = lltostr(10, 37);
	printf("not reached\n");
}

BEGIN
{
	printf("[%s]\n", lltostr(10, 36));
	exit(0);
}
