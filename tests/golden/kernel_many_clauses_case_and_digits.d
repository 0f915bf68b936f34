/* options: -q */
/* needs: Linux 6.4 (jumps longer than a 16-bit offset become gotol) */
/*
 * Sixty BEGIN clauses each joining, converting and upper-casing a string: toupper()
 * and lltostr() run as bpf_loop callbacks on the kernel engine, so that the verifier
 * does not follow every byte of every call past its limit of a million instructions.
 */
BEGIN
{
	self->s0 = strjoin("x", lltostr(0));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(1));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(2));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(3));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(4));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(5));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(6));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(7));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(8));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(9));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(10));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(11));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(12));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(13));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(14));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(15));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(16));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(17));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(18));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(19));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(20));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(21));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(22));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(23));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(24));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(25));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(26));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(27));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(28));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(29));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(30));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(31));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(32));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(33));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(34));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(35));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(36));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(37));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(38));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(39));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(40));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(41));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(42));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(43));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(44));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(45));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(46));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(47));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(48));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(49));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(50));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(51));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(52));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(53));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(54));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	self->s0 = strjoin("x", lltostr(55));
	printf("%s %d %s\n", self->s0, strlen(self->s0), toupper(self->s0));
}
BEGIN
{
	self->s1 = strjoin("x", lltostr(56));
	printf("%s %d %s\n", self->s1, strlen(self->s1), toupper(self->s1));
}
BEGIN
{
	self->s2 = strjoin("x", lltostr(57));
	printf("%s %d %s\n", self->s2, strlen(self->s2), toupper(self->s2));
}
BEGIN
{
	self->s3 = strjoin("x", lltostr(58));
	printf("%s %d %s\n", self->s3, strlen(self->s3), toupper(self->s3));
}
BEGIN
{
	self->s4 = strjoin("x", lltostr(59));
	printf("%s %d %s\n", self->s4, strlen(self->s4), toupper(self->s4));
}
BEGIN
{
	exit(0);
}
