/* options: -e -v */
/*
 * -e -v reports the program, then each clause's probe description followed by what
 * dtrace(1)'s print_probe_info() prints for it (a description without a provider has
 * Unstable attributes).
 */
BEGIN
{
	trace(1);
}

dtrace:::END
{
	exit(0);
}
