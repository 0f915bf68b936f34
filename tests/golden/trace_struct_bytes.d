/* options:  */
struct foo {
	int a;
	char b[4];
};

BEGIN
{
	this->f = (struct foo *)alloca(8);
	this->f->a = 0x01020304;
	this->f->b[0] = 'h';
	this->f->b[1] = 'i';
	this->f->b[2] = 0;
	this->f->b[3] = 0;
	trace(*this->f);
	trace(this->f->b);
	exit(0);
}
