/* args: PID */
/*
 * rwinfo_struct.d - read(2) and write(2) statistics of one process kept
 * in a user-defined structure: call count, largest request, total time.
 * (After the "rwinfo" example of the DTrace guide.)
 *
 * Shows: a struct definition, a typedef, an associative array of structs
 * (callinfo_t i[string]), member access and ++ on array elements, ?: in an
 * assignment, sizeof and offsetof, a PID macro argument.
 * Run:   dtrace -s rwinfo_struct.d PID    (Ctrl-C to print)
 */

#pragma D option quiet

struct callinfo {
	uint64_t ts;		/* timestamp of the last entry */
	uint64_t elapsed;	/* total elapsed time in nanoseconds */
	uint64_t calls;		/* number of calls made */
	size_t maxbytes;	/* largest byte count requested */
};

typedef struct callinfo callinfo_t;

callinfo_t i[string];

BEGIN
{
	printf("Tracing pid %d; struct callinfo is %d bytes, calls at offset %d\n",
	    $1, sizeof (callinfo_t), offsetof(struct callinfo, calls));
}

syscall::read:entry, syscall::write:entry
/pid == $1/
{
	i[probefunc].ts = timestamp;
	i[probefunc].calls++;
	i[probefunc].maxbytes = arg2 > i[probefunc].maxbytes ?
	    arg2 : i[probefunc].maxbytes;
}

syscall::read:return, syscall::write:return
/i[probefunc].ts != 0 && pid == $1/
{
	i[probefunc].elapsed += timestamp - i[probefunc].ts;
}

END
{
	printf("        calls  max bytes  elapsed nsecs\n");
	printf("------  -----  ---------  -------------\n");
	printf("  read  %5d  %9d  %d\n",
	    i["read"].calls, i["read"].maxbytes, i["read"].elapsed);
	printf(" write  %5d  %9d  %d\n",
	    i["write"].calls, i["write"].maxbytes, i["write"].elapsed);
}
