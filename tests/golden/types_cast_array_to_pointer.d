/* options: -q */
/*
 * An array casts to any pointer type, as in C and DTrace ("from arrays to pointers"):
 * global arrays and array members of structs alike.
 */
int ia[4];
struct s {
	int v[2];
	short h[2];
} st;

BEGIN
{
	ia[1] = 0x01020304;
	st.v[1] = 9;
	st.h[1] = 3;
	printf("%d %d\n", *(int *)((char *)ia + 4), *((char *)ia + 4));
	printf("%d %d\n", ((int *)st.v)[1], *((short *)st.h + 1));
	this->p = (long *)ia;
	printf("%d\n", this->p == (long *)&ia[0]);
	exit(0);
}
