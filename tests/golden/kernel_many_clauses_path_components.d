/* options: -q */
/* needs: Linux 6.4 (jumps longer than a 16-bit offset become gotol) */
/*
 * Forty clauses taking basename() and dirname() of a path: their backward scans run as
 * bpf_loop callbacks on the kernel engine, which the verifier checks once.
 */
BEGIN
{
	this->p = strjoin("/usr/lib0/", lltostr(0));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib1/", lltostr(1));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib2/", lltostr(2));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib3/", lltostr(3));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib4/", lltostr(4));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib5/", lltostr(5));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib6/", lltostr(6));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib7/", lltostr(7));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib8/", lltostr(8));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib9/", lltostr(9));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib10/", lltostr(10));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib11/", lltostr(11));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib12/", lltostr(12));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib13/", lltostr(13));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib14/", lltostr(14));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib15/", lltostr(15));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib16/", lltostr(16));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib17/", lltostr(17));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib18/", lltostr(18));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib19/", lltostr(19));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib20/", lltostr(20));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib21/", lltostr(21));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib22/", lltostr(22));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib23/", lltostr(23));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib24/", lltostr(24));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib25/", lltostr(25));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib26/", lltostr(26));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib27/", lltostr(27));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib28/", lltostr(28));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib29/", lltostr(29));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib30/", lltostr(30));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib31/", lltostr(31));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib32/", lltostr(32));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib33/", lltostr(33));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib34/", lltostr(34));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib35/", lltostr(35));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib36/", lltostr(36));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib37/", lltostr(37));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib38/", lltostr(38));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	this->p = strjoin("/usr/lib39/", lltostr(39));
	printf("%s %s\n", basename(this->p), dirname(this->p));
}
BEGIN
{
	exit(0);
}
