/* options: -q */
BEGIN
{
	this->a = 5;
	this->s = "text";
}

BEGIN
{
	printf("%d %s\n", this->a, this->s);
	this->a++;
}

BEGIN
{
	printf("%d\n", this->a);
	exit(0);
}
