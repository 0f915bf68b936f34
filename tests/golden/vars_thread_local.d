/* options: -q */
BEGIN
{
	self->b = 6;
	self->s = "mine";
}

BEGIN
{
	printf("%d %s\n", self->b, self->s);
	self->b = 0;
	self->s = 0;
}

BEGIN
{
	printf("%d [%s]\n", self->b, self->s);
	self->b = 42;
	exit(0);
}

END
{
	printf("%d\n", self->b);
}
