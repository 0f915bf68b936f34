/* options: -x errtags */
/*
 * Only an unnamed bit-field may have width 0; a named one needs a positive width.
 */
struct s {
	int a : 0;
};

BEGIN
{
	exit(0);
}
