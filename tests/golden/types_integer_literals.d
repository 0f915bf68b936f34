/* options: -q */
BEGIN
{
	printf("%d %d %d %d\n", 0x10, 010, 10, 0XfF);
	printf("%d %d\n", 0xffffffff, 4294967295);
	printf("%d %d\n", sizeof (0xffffffff), sizeof (4294967295));
	printf("%d %d %d %d\n", sizeof (1u), sizeof (1l), sizeof (1ul), sizeof (1LL));
	printf("%d %d\n", sizeof (0x7fffffff), sizeof (0x100000000));
	printf("%d\n", 0x8000000000000000 > 0);
	printf("%u\n", 18446744073709551615u);
	printf("%d\n", 0 == 00);
	exit(0);
}
