/* options: -q */
/*
 * Scalar arrays whose elements are strings (or structs with string members) are stored
 * by copying the string into the element, on both engines.
 */
struct rec {
	int id;
	string name;
} r[3];
string names[2][2];
string s[3];
char buf[16];

BEGIN
{
	s[1] = "hello";
	r[1].id = 7;
	r[1].name = "seven";
	names[1][0] = "one-zero";
	names[0][1] = "zero-one";
	bcopy((void *)"abc", (void *)&buf[0], 4);
	printf("[%s] [%s] [%s]\n", s[0], s[1], s[2]);
	printf("%d [%s] [%s]\n", r[1].id, r[1].name, r[0].name);
	printf("[%s] [%s] [%s]\n", names[1][0], names[0][1], names[1][1]);
	printf("[%s]\n", buf);
	exit(0);
}
