/* options: -q */
BEGIN
{
	x = 1;
}

BEGIN
/x == 1/
{
	printf("first\n");
}

BEGIN
/x == 2/
{
	printf("never\n");
}

BEGIN
/x/
{
	x++;
	printf("second %d\n", x);
}

BEGIN
/x == 2/
{
	printf("third\n");
}

BEGIN
/x > 1 && x < 3/
{
	printf("fourth\n");
}

BEGIN
/!x/
{
	printf("never again\n");
}

BEGIN
/x / 2 == 1/
{
	printf("division %d\n", x / 2);
}

BEGIN
{
	exit(0);
}

END
/x == 2/
{
	printf("end %d\n", x);
}
