/* options: -q -x errtags */
/*
 * D has no version pragma; `1.0` is one word (a name), not an integer with an
 * invalid digit, so the unknown pragma is the error.
 */
#pragma D version 1.0

BEGIN
{
	exit(0);
}
