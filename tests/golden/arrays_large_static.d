/* options: -q */
/* A scalar array larger than one static object still works, element by element. */
int big[100000];

BEGIN
{
	big[0] = 1;
	big[99999] = 5;
	i = 50000;
	big[i] = 7;
	printf("%d %d %d %d\n", big[0], big[99999], big[i], big[1]);
	exit(0);
}
