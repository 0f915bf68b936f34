/* options: -q */
int counts[string];

BEGIN
{
	a[1, "x"] = 3;
	a[2, "x"] = 4;
	a[1, "y"] = 5;
	printf("%d %d %d %d\n", a[1, "x"], a[2, "x"], a[1, "y"], a[2, "y"]);
	a[1, "x"] = 0;
	printf("%d\n", a[1, "x"]);
	s["k"] = "hello";
	printf("[%s]\n", s["k"]);
	s["k"] = 0;
	printf("[%s][%s]\n", s["k"], s["never"]);
	i = 3;
	n[i * 2] = 7;
	n[6]++;
	printf("%d %d\n", n[6], n[3]);
	t[-1] = 1;
	printf("%d\n", t[-1]);
	self->arr["q"] = 9;
	printf("%d\n", self->arr["q"]);
	counts["a"] += 2;
	counts["a"] += 3;
	printf("%d\n", counts["a"]);
	exit(0);
}
