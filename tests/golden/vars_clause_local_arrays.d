/* options: -q */
/*
 * Clause-local variables of array or struct-array type are storage of their own for
 * each firing: their elements can be stored into, integers and strings alike, in an
 * ERROR clause too, and read as zero before.
 */
struct pt {
	int x;
	string n;
};
this int l[4];
this string names[2];
this struct pt ps[2];

BEGIN
{
	this->l[2] = 6;
	this->names[1] = "str";
	this->ps[1].x = 7;
	this->ps[1].n = "seven";
	printf("%d %d [%s] [%s]\n", this->l[2], this->l[0], this->names[1], this->names[0]);
	printf("%d [%s] %d\n", this->ps[1].x, this->ps[1].n, this->ps[0].x);
}

BEGIN
{
	x = *(int *)0;
}

ERROR
{
	this->l[3] = 33;
	printf("error %d %d\n", this->l[3], this->l[2]);
	exit(0);
}
