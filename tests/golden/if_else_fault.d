/* options: -q */
BEGIN
{
	printf("before\n");
	if (1) {
		x = *(int *)0;
	}
	printf("after\n");
}

BEGIN
{
	if (*(int *)0) {
		printf("then\n");
	} else {
		printf("else\n");
	}
	printf("after condition\n");
}

BEGIN
{
	printf("next clause\n");
	exit(0);
}
