/* options: -xerrtags */
/*
 * A struct with two members of one name: libctf refuses the second member and DTrace
 * reports its error unclassified.
 */
struct dup_members {
	int a;
	char b;
	long a;
};
BEGIN { exit(0); }
