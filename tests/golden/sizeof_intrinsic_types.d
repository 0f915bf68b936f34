/* options: -q -x strsize=128 */
/*
 * sizeof of every intrinsic type and of the typedefs D knows (DTrace's own and the
 * Solaris names its headers and tests use), in the LP64 data model.
 */
BEGIN
{
	printf("%d %d %d %d %d %d\n", sizeof (char), sizeof (short), sizeof (int),
	    sizeof (long), sizeof (long long), sizeof (float));
	printf("%d %d %d\n", sizeof (double), sizeof (long double), sizeof (void *));
	printf("%d %d %d %d %d %d %d %d\n", sizeof (int8_t), sizeof (int16_t),
	    sizeof (int32_t), sizeof (int64_t), sizeof (uint8_t), sizeof (uint16_t),
	    sizeof (uint32_t), sizeof (uint64_t));
	printf("%d %d %d %d %d %d\n", sizeof (intptr_t), sizeof (uintptr_t),
	    sizeof (size_t), sizeof (ssize_t), sizeof (ptrdiff_t), sizeof (id_t));
	printf("%d %d %d %d\n", sizeof (pid_t), sizeof (processorid_t),
	    sizeof (hrtime_t), sizeof (boolean_t));
	printf("%d %d %d %d %d %d\n", sizeof (uchar_t), sizeof (ushort_t),
	    sizeof (uint_t), sizeof (ulong_t), sizeof (u_longlong_t), sizeof (longlong_t));
	printf("%d %d %d\n", sizeof (string), sizeof (int [5]), sizeof (char [3][4]));
	printf("%d %d %d %d\n", sizeof (signed char), sizeof (unsigned), sizeof (signed),
	    sizeof (short int));
	printf("%d %d %d\n", sizeof (`int), sizeof (unsigned long long int),
	    sizeof (long int));
	exit(0);
}
