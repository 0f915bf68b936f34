/* options: -q */
/*
 * D adds casts from integers to strings to C's cast rules: the integer is the address
 * of the string, as a cast to char * would make it (`(string)arg0` of a kernel string).
 */
BEGIN
{
	this->p = (char *)alloca(4);
	this->p[0] = 'h';
	this->p[1] = 'i';
	this->p[2] = 0;
	this->a = (uint64_t)this->p;
	printf("%s %s\n", (string)this->a, (string)(long)this->p);
	exit(0);
}
