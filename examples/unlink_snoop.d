/*
 * unlink_snoop.d - who deletes files and directories?
 *
 * Shows: unlinkat(2) arguments (arg1 = path, arg2 = flags, 0x200 being
 * AT_REMOVEDIR), bitwise & in an expression, ?: in printf arguments,
 * cleanpath(), substr() and strlen() on a copied-in path.
 * Run:   dtrace -s unlink_snoop.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz

inline int AT_REMOVEDIR = 0x200;

syscall::unlinkat:entry
/pid != $pid/
{
	this->path = cleanpath(copyinstr(arg1));
	printf("%-16s %7d %-6s %s%s\n", execname, pid,
	    (arg2 & AT_REMOVEDIR) ? "rmdir" : "unlink",
	    strlen(this->path) > 60 ? "..." : "",
	    strlen(this->path) > 60 ? substr(this->path, -57) : this->path);
}
