/* options: -q */
/*
 * A predicate may read a global or thread-local variable that only a later clause
 * assigns: the variable is declared with the type of that assignment and reads as
 * 0 or "" until it runs.
 */
BEGIN
/x == 0 && s == "" && self->t == 0 && n == 0/
{
	printf("before: x=%d s=[%s] self->t=%d n=%d\n", x, s, self->t, n);
}

BEGIN
{
	x = 5;
	s = "hello";
	self->t = 7;
	n++;
}

BEGIN
/x == 5 && s == "hello" && self->t == 7 && n == 1/
{
	printf("after: x=%d s=[%s] self->t=%d n=%d\n", x, s, self->t, n);
	exit(0);
}
