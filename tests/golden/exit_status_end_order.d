/* options: -q */
BEGIN
{
	printf("begin\n");
	exit(3);
	printf("after exit\n");
}

BEGIN
{
	printf("second clause\n");
}

END
{
	printf("end\n");
}
