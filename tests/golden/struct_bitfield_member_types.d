/* options: -q */
/*
 * A bit-field member's type is, as DTrace makes it, an integer with the declared type's
 * name and signedness and the power-of-two size its width needs: a variable assigned a
 * bit-field's value has that size, and the value keeps its sign.
 */
struct s {
	unsigned int f : 3;
	int g : 12;
	uint32_t h : 20;
	long big : 40;
} v;

BEGIN
{
	v.f = 5;
	v.g = -7;
	v.h = 0xfffff;
	v.big = -2;
	x = v.f;
	y = v.g;
	z = v.h;
	w = v.big;
	printf("%d %d %d %d\n", sizeof (x), sizeof (y), sizeof (z), sizeof (w));
	printf("%d %d %d %d %d\n", x, y, z, w, x + y);
	printf("%d\n", sizeof (struct s));
	print(v);
	exit(0);
}
