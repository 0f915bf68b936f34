/* options: -q */
/*
 * A fault in the thirteenth action of a long clause is reported with its action
 * index, and the clause records nothing; the kernel engine runs such a clause's
 * actions in subprograms of a few actions each.
 */
BEGIN
{
	printf("%d\n", 1);
	printf("%d\n", 2);
	printf("%d\n", 3);
	printf("%d\n", 4);
	printf("%d\n", 5);
	printf("%d\n", 6);
	printf("%d\n", 7);
	printf("%d\n", 8);
	printf("%d\n", 9);
	printf("%d\n", 10);
	printf("%d\n", 11);
	printf("%d\n", 12);
	trace(*(int *)8);
	printf("%d\n", 13);
	printf("%d\n", 14);
	printf("%d\n", 15);
	printf("%d\n", 16);
	printf("%d\n", 17);
	printf("%d\n", 18);
	printf("%d\n", 19);
	printf("%d\n", 20);
	printf("%d\n", 21);
	printf("%d\n", 22);
	printf("%d\n", 23);
	printf("%d\n", 24);
}

ERROR
{
	printf("ERROR action %d fault %d\n", arg2, arg4);
	exit(0);
}
