/* options: -q */
BEGIN
{
	printf("[%s]", strtok("a,b,,c", ","));
	printf("[%s]", strtok(0, ","));
	printf("[%s]", strtok(0, ","));
	printf("[%s]\n", strtok(0, ","));
	printf("[%s]", strtok("  x y  ", " "));
	printf("[%s]", strtok(0, " "));
	printf("[%s]\n", strtok(0, " "));
	printf("[%s]\n", strtok(",,,", ","));
	printf("[%s]", strtok("one;two:three", ";:"));
}
BEGIN
{
	printf("[%s]", strtok(0, ";:"));
	printf("[%s]\n", strtok(0, ";:"));
	exit(0);
}
