/* options: -q */
BEGIN
{
	printf("%p|%#p\n", (void *)4096, (void *)4096);
	printf("%p\n", 255);
	printf("100%%\n");
	exit(0);
}
