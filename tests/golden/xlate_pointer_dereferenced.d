/* options: -q */
/*
 * * applied to a translated pointer is the translated struct (dt_cook_op1()), both
 * for xlate <T *>(e) and for an inline whose value is such a translation: its members
 * are translated, and the whole struct is built member by member.
 */
struct in { int a; long b; };
struct out { int sum; long twice; };

translator struct out < struct in *p > {
	sum = p->a + p->b;
	twice = p->b * 2;
};

struct in *ip;
inline struct out *xo = xlate <struct out *>(ip);

BEGIN
{
	ip = (struct in *)alloca(sizeof (struct in));
	ip->a = 3;
	ip->b = 4;
	printf("%d %d\n", (*xo).sum, (*xo).twice);
	printf("%d\n", (*xlate <struct out *>(ip)).twice);
	printf("%d\n", sizeof (*xo));
	this->s = *xo;
	printf("%d %d\n", this->s.sum, this->s.twice);
	exit(0);
}
