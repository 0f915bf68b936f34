/* options: -q */
struct pt { int x; int y; };
struct pt g;

BEGIN
{
	g.y = 2;
	this->p = g;
	this->p.x = 9;
	this->p.y++;
	printf("clause-local: %d %d, global %d %d\n", this->p.x, this->p.y, g.x, g.y);
	this->q = this->p;
	this->q.x = -1;
	printf("copy: %d %d, source %d\n", this->q.x, this->q.y, this->p.x);
	this->ptr = (struct pt *)alloca(sizeof (struct pt));
	this->ptr->x = 11;
	this->ptr->y = 12;
	this->r = *this->ptr;
	this->ptr->x = 0;
	printf("from memory: %d %d\n", this->r.x, this->r.y);
	trace(this->r);
}

BEGIN
{
	this->p.x = 5;
	printf("\nnext clause: %d %d\n", this->p.x, this->p.y);
	exit(0);
}
