/* options:  */
BEGIN
{
	printf("hello\n");
}
BEGIN
{
	printf("no newline");
}
BEGIN
{
	printf("%d and %s\n", 1, "two");
	exit(0);
}
