/* options: -q -x errtags */
/* The version of a binding pragma must be a string. */
inline int answer = 42;
#pragma D binding 1.0 answer

BEGIN
{
	trace(answer);
	exit(0);
}
