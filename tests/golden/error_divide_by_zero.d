/* options: -q */
BEGIN
{
	y = 0;
	z = 10 / y;
	printf("not reached\n");
}

BEGIN
{
	y = 0;
	printf("%d\n", 10 % y);
}

BEGIN
{
	printf("continued\n");
	exit(0);
}
