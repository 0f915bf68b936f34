/* options: -q -x strsize=8 */
/*
 * A string key holds what a string variable holds (at most strsize - 1 characters), so
 * a key given as a long literal and one given as a variable assigned that literal name
 * the same element, as do two literals that differ only past that length.
 */
BEGIN
{
	x = "abcdefghij";
	a[x] = 1;
	a["abcdefghij"] += 10;
	a["abcdefgXYZ"] += 100;
	printf("%d %d %d\n", a[x], a["abcdefghij"], a["abcdefg"]);
	self->s = "abcdefghij";
	b[self->s, 1] = 2;
	printf("%d\n", b["abcdefghijkl", 1]);
	exit(0);
}
