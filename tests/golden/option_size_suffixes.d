/* options: -q -x bufsize=1k -x aggsize=0x1000 -x dynvarsize=1m -x specsize=2K -x switchrate=10hz -x aggrate=1ms -x cleanrate=3000hz -x statusrate=1s */
#pragma D option strsize=1k
#pragma D option quiet=yes
#pragma D option flowindent=no
BEGIN
{
	@a["x"] = count();
	v["k"] = 1;
	printf("%d\n", sizeof (string));
	exit(0);
}
