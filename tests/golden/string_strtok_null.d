/* options: -q */
/*
 * strtok(NULL, …) with no saved position — before any string, and again after the
 * last token ran out — is NULL (D-REFERENCE §7.3), which prints as empty and compares
 * equal to NULL; it is not a fault.
 */
BEGIN
{
	printf("[%s]\n", strtok(NULL, ","));
	trace(strtok(NULL, ","));
	printf("|\n");
	x = strtok(NULL, ",");
	printf("%d %d [%s] [%s]\n", x == NULL, x != NULL, x, stringof(x));
	printf("[%s]", strtok("a,b", ","));
	printf("[%s]", strtok(NULL, ","));
	printf("[%s]", strtok(NULL, ","));
	printf("[%s]", strtok(NULL, ","));
	printf("[%s]\n", strtok(NULL, ","));
}
BEGIN
/(this->t = strtok(NULL, ",")) == NULL/
{
	printf("[%s] done\n", this->t);
	exit(0);
}
