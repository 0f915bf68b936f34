/* options: -q -x strsize=16 */
int i;
long l;
char c;
short s;
unsigned long long ull;
string str;
BEGIN
{
	printf("%d %d %d %d %d\n", sizeof (i), sizeof (l), sizeof (c), sizeof (s), sizeof (ull));
	printf("%d %d %d\n", sizeof (1 + 1L), sizeof ('a'), sizeof (c + c));
	printf("%d %d %d\n", sizeof (1u + 1), sizeof (1 == 1), sizeof (c << 40));
	printf("%d %d %d\n", sizeof (int), sizeof (uint64_t), sizeof (char *));
	printf("%d %d\n", sizeof (str), sizeof (string));
	exit(0);
}
