/* options: -q */
BEGIN
{
	trace((char)-2);
	trace("|");
	trace((unsigned char)254);
	trace("|");
	trace((short)-2);
	trace("|");
	trace((unsigned short)65534);
	trace("|");
	trace(-2);
	trace("|");
	trace(4294967294u);
	trace("|");
	trace(-2L);
	trace("|");
	trace((unsigned long)-2);
	trace("|");
	trace("abc");
	trace("|");
	trace(1 == 1);
	printf("\n");
	exit(0);
}
