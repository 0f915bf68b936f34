/* options: -q -x specsize=16 */
/*
 * A speculate() that finds no room for the clause's record ends the clause, as
 * DTrace flags a drop there: of 0, of a speculation that is not active, and of a
 * speculation whose buffer is full (a speculative drop). The statements after it,
 * assignments included, do not run; those before it do.
 */
BEGIN
{
	before = 1;
	speculate(0);
	zero = 1;
	printf("speculated on 0\n");
}

BEGIN
{
	speculate(1);
	inactive = 1;
	printf("speculated on an inactive speculation\n");
}

BEGIN
{
	s = speculation();
}

BEGIN
{
	speculate(s);
	full = 1;
	printf("%d %d %d\n", 1, 2, 3);
}

BEGIN
{
	speculate(s);
	fits = 1;
	printf("fits\n");
}

BEGIN
{
	commit(s);
}

BEGIN
{
	printf("before=%d zero=%d inactive=%d full=%d fits=%d\n", before, zero,
	    inactive, full, fits);
	exit(0);
}
