/* options: -q */
/*
 * NULL is the null pointer constant without -C: it compares with every pointer, with a
 * string (by address: a string from strstr() that found nothing is NULL, the empty
 * string is not), converts to any pointer type, makes a void * variable, traces as 0
 * and meets a pointer on the other side of ?:. A string also compares with 0.
 */
BEGIN
{
	p = (int *)0;
	q = (int *)8;
	s = "abc";
	e = "";
	printf("%d %d %d %d\n", p == NULL, p != NULL, NULL == p, q != NULL);
	printf("%d %d %d %d\n", s == NULL, s != NULL, NULL == s, e == NULL);
	printf("%d %d\n", strstr(s, "z") == NULL, strstr(s, "b") != NULL);
	printf("%d %d\n", s == 0, 0 != s);
	x = NULL;
	r = q;
	r = NULL;
	printf("%d %d\n", x == NULL, r == NULL);
	trace(NULL);
	t = p == 0 ? q : NULL;
	u = p != 0 ? q : NULL;
	printf("\n%d %d\n", t == q, u == NULL);
	printf("%d %d\n", sizeof (NULL), NULL == 0);
	exit(0);
}
