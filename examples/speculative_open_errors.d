/*
 * speculative_open_errors.d - print the full story of openat(2) calls
 * that fail, and nothing at all for those that succeed.
 *
 * Shows: speculative tracing: speculation() allocating a buffer on entry,
 * speculate() sending the entry and return details into it, commit() when
 * errno is set and discard() otherwise; the nspec and specsize options.
 * Run:   dtrace -s speculative_open_errors.d
 */

#pragma D option quiet
#pragma D option nspec=16
#pragma D option specsize=64k
#pragma D option switchrate=10hz

syscall::openat:entry
/pid != $pid/
{
	self->spec = speculation();
	speculate(self->spec);
	printf("%Y %s[%d] openat(\"%s\", flags 0x%x)\n", walltimestamp, execname,
	    pid, copyinstr(arg1), arg2);
}

syscall::openat:return
/self->spec/
{
	speculate(self->spec);
	printf("    returned %d, errno %d\n", arg0, errno);
}

syscall::openat:return
/self->spec && errno != 0/
{
	commit(self->spec);
	self->spec = 0;
}

syscall::openat:return
/self->spec/
{
	discard(self->spec);
	self->spec = 0;
}
