/* options: -q */
BEGIN
{
	printf("one\n");
}

END
{
	printf("end one\n");
}

BEGIN
{
	printf("two\n");
}

BEGIN, END
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
}

END
{
	printf("end two\n");
}

BEGIN
{
	printf("three\n");
	exit(0);
}
