/* options: -q */
/*
 * __copyin_arguments(start, end), the D library's reader of a process's argument
 * area (psinfo_t's pr_psargs): an empty or inverted range is the empty string, read
 * from nowhere, so it cannot fault.
 */
BEGIN
{
	printf("[%s] [%s]\n", __copyin_arguments(4096, 4096),
	    __copyin_arguments(8192, 4096));
	exit(0);
}
