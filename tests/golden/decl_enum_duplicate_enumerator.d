/* options: -xerrtags */
/*
 * An enum with two enumerators of one name: libctf refuses the second one (before
 * DTrace compares the name with the global identifiers) and DTrace reports its error
 * unclassified (at the line of the token after it, which its parser had read).
 */
enum dup_enumerators {
	FIRST,
	SECOND,
	FIRST
};
BEGIN { exit(0); }
