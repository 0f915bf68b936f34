/*
 * Each key of a tuple is computed into a register before the tuple is pushed, as DTrace
 * does, so eight keys and the value need more registers than DIF has.
 */
BEGIN
{
	a[1, 2, 3, 4, 5, 6, 7, 8] = 1;
	exit(0);
}
