/* options: -q */
/*
 * The system library's inlines (errno.d, signal.d) are declared before every program,
 * with Linux's numbers.
 */
BEGIN
{
	printf("%d %d %d %d %d\n", EPERM, ENOENT, EAGAIN, EWOULDBLOCK, ENOTSUP);
	printf("%d %d %d %d %d\n", SIGHUP, SIGINT, SIGKILL, SIGUSR1, SIGSTOP);
	exit(errno == ENOENT ? 1 : 0);
}
