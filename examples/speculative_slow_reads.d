/* args: 10 */
/*
 * speculative_slow_reads.d - for read(2) calls slower than a threshold
 * (in milliseconds), show what happened inside the kernel during the call;
 * fast reads leave no trace.
 *
 * Shows: speculation across three probes (syscall entry, fbt in the
 * middle, syscall return), commit() or discard() decided by a predicate
 * with && and an integer macro argument, printf of elapsed microseconds.
 * Run:   dtrace -s speculative_slow_reads.d 10
 */

#pragma D option quiet
#pragma D option nspec=8

inline uint64_t NS_PER_MS = 1000000;

syscall::read:entry
/pid != $pid/
{
	self->ts = timestamp;
	self->spec = speculation();
	speculate(self->spec);
	printf("%s[%d] read(fd %d, %d bytes)\n", execname, pid, arg0, arg2);
}

fbt::vfs_read:entry
/self->spec/
{
	speculate(self->spec);
	printf("    vfs_read entered after %d us\n", (timestamp - self->ts) / 1000);
}

syscall::read:return
/self->spec/
{
	speculate(self->spec);
	printf("    returned %d after %d us\n", arg0, (timestamp - self->ts) / 1000);
}

syscall::read:return
/self->spec && timestamp - self->ts >= $1 * NS_PER_MS/
{
	commit(self->spec);
	self->spec = 0;
}

syscall::read:return
/self->spec/
{
	discard(self->spec);
	self->spec = 0;
}

syscall::read:return
/self->ts/
{
	self->ts = 0;
}
