/* args: bash */
/*
 * flow_read.d - the kernel functions a single read(2) of one program goes
 * through, shown as an indented call flow; exits after that read.
 *
 * Shows: the flowindent option (entries marked ->, returns <-, system calls
 * => and <=), dtrace's default (non-quiet) output with its CPU and probe
 * columns, clauses with empty action blocks, a string macro argument.
 * Run:   dtrace -s flow_read.d bash    (then press a key in a bash shell)
 */

#pragma D option flowindent

syscall::read:entry
/execname == $$1/
{
	self->traced = 1;
}

fbt::vfs_*:entry, fbt::vfs_*:return
/self->traced/
{
}

syscall::read:return
/self->traced/
{
	self->traced = 0;
	exit(0);
}
