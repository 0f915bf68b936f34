/* options: -q */
BEGIN
{
	exit(3);
}

END
{
	printf("end\n");
	exit(5);
}
