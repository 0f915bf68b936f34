/* options: -q -x errtags */
/*
 * A translated struct used as a whole is built in scratch memory, one member of the
 * translator at a time, and trace() records it as any struct: its bytes.
 */
struct T {
	int a;
	char b;
	long c;
};

translator struct T < int x > {
	a = x + 1;
	b = 'c';
	c = x * 1000;
};

BEGIN
{
	trace(xlate <struct T> (3));
	exit(0);
}
