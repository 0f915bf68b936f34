/* options: -q */
BEGIN
{
	x = 3;
	if (x > 2)
		printf("big\n");
	else
		printf("small\n");
	if (x > 5) {
		printf("huge\n");
	} else if (x == 3) {
		printf("three\n");
	} else {
		printf("other\n");
	}
	if (x)
		printf("nonzero\n");
	if (0)
		printf("never\n");
	if (x == 3) {
		if (x < 0)
			printf("impossible\n");
		else
			printf("nested\n");
		y = 10;
	}
	printf("after %d\n", y);
	exit(0);
}
