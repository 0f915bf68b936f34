/* options: -x errtags */
/* A member without a size is a void member (D_DECL_VOIDOBJ). */
struct s {
	int a;
	void b;
};

BEGIN
{
	exit(0);
}
