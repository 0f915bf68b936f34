/* options: -q */
/*
 * A string member of a declared struct takes string constants and computed strings in
 * every class of variable; a store copies the string up to its NUL (never past the end
 * of a shorter string), so a shorter string replaces a longer one.
 */
struct p {
	int i;
	string s;
} g;
self struct p t;
struct p a[int];

BEGIN
{
	g.s = "abc";
	g.i = 2;
	g.s = "a longer string";
	g.s = "xy";
	printf("%s %d|\n", g.s, g.i);
	self->t.s = "thread";
	a[1].s = strjoin("asso", "ciative");
	printf("%s %s\n", self->t.s, a[1].s);
	print(g);
	exit(0);
}
