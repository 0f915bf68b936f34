/* options: -q */
/*
 * A character constant is typed as a decimal constant: int while it fits, else
 * long; '\377' is 255 (the bytes are packed big-endian, never sign-extended).
 */
BEGIN
{
	printf("%d %d %d\n", sizeof ('a'), sizeof ('\377\377\377\377'), sizeof ('abcdefgh'));
	printf("%d %d %d\n", '\377', '\377\377\377\377' > 0, 'ab');
	exit(0);
}
