/* options: -q */
BEGIN
/ *(int *)0 == 1 /
{
	printf("no\n");
}

BEGIN
{
	printf("yes\n");
	exit(0);
}
