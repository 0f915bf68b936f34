/* options: -q */
BEGIN
{
	printf("%d %d %d\n", (char)300, (unsigned char)-1, (short)70000);
	printf("%d %d\n", (unsigned short)-1, (int)0x1ffffffffLL);
	printf("%d %d\n", (unsigned)-1, (long)(unsigned)-1);
	printf("%d %d %d\n", (char)200, (unsigned char)(char)-56, (int)(char)255);
	printf("%d %d\n", (unsigned long)-5, (long)-1);
	printf("%d %d %d\n", (uint8_t)257, (int16_t)-32769, (int64_t)4294967296);
	printf("%d\n", (int)(unsigned char)-1 + (char)-1);
	printf("%x %x %x\n", (char)-1, (short)-1, -1);
	exit(0);
}
