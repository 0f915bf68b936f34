/* args: sleep */
/*
 * exec_hook_system.d - whenever a program with the given name starts,
 * print its details and run ps(1) on it: a template for "when X happens,
 * collect Y".
 *
 * Shows: a destructive action (system(), allowed by the destructive
 * option, the same as -w), system() with printf-style arguments, the
 * sched_process_exec tracepoint, a string macro argument.
 * Run:   dtrace -s exec_hook_system.d sleep    (then run: sleep 5)
 */

#pragma D option quiet
#pragma D option destructive

sdt:sched::sched_process_exec
/execname == $$1/
{
	printf("%Y %s started as pid %d (parent %d):\n", walltimestamp,
	    execname, pid, ppid);
	system("ps -o pid,ppid,user,args -p %d", pid);
}
