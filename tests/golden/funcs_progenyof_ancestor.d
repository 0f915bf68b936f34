/* options: -q */
BEGIN
{
	printf("%d %d %d\n", progenyof(pid), progenyof(1), progenyof(ppid));
	exit(0);
}
