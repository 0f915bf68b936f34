/* options: -q */
BEGIN
{
	printf("%d|%i|%u|%o|%x|%X\n", 42, -42, 42, 8, 255, 255);
	printf("%d|%u|%x|%o\n", -1, -1, -1, -1);
	printf("%d|%u|%x\n", -1L, -1L, -1L);
	printf("%d|%d\n", 9223372036854775807, -9223372036854775807L - 1);
	printf("%d|%i\n", 4294967295u, 1u);
	printf("%d|%u\n", (char)-3, (char)-3);
	printf("%d|%u\n", (short)-3, (short)-3);
	printf("%ld|%lx\n", -5L, 255L);
	printf("%lld|%llx\n", 1LL << 62, 1LL << 62);
	printf("%hd|%hx\n", (short)-2, (short)-1);
	exit(0);
}
