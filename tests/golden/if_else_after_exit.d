/* options: -q */
/*
 * The statements after an if/else are enablings of their own (as in illumos, which
 * splits such clauses): after exit() they do not run, nor does any later BEGIN clause.
 */
BEGIN
{
	exit(4);
	if (1) {
		printf("in if\n");
	}
	printf("after\n");
}

BEGIN
{
	printf("next clause\n");
}

END
{
	printf("end\n");
}
