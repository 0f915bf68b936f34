/* options: -q */
/*
 * A struct, union or enum defined inside a type name of a clause (sizeof, a cast) is
 * declared once, as DTrace's parser reads it: its tag and its enumerators are known
 * from then on, in that clause and in later ones.
 */
BEGIN
{
	printf("%d\n", sizeof (struct tn_pair { int a; long b; }));
	printf("%d\n", sizeof (union tn_word { int i; char c[6]; }));
	printf("%d %d\n", (enum tn_level { TN_LOW, TN_HIGH = 5 })1, TN_HIGH);
	p = (struct tn_node { int v; struct tn_node *next; } *)0;
	printf("%d\n", sizeof (*p));
}

BEGIN
{
	printf("%d %d\n", sizeof (struct tn_pair), TN_LOW);
	exit(0);
}
