/* options: -x errtags */
/*
 * A translated pointer has DTrace's dynamic type: only its members may be used, and
 * trace() refuses it as a translated pointer.
 */
struct T {
	int a;
};

translator struct T < int x > {
	a = x;
};

BEGIN
{
	trace(xlate <struct T *> (1));
}
