/* args: PID */
/*
 * python_flow.d - follow the Python call flow of a running process, one
 * line per call and return, indented by call depth.
 *
 * Shows: function__entry and function__return USDT probes, a declared
 * thread-local depth counter, printf with a dynamic width (%*s) for the
 * indentation, predicates guarding against returns from frames entered
 * before tracing began.
 * Run:   dtrace -s python_flow.d PID
 */

#pragma D option quiet
#pragma D option switchrate=10hz

self int depth;

python$1:::function__entry
{
	printf("%6d %*s-> %s:%d %s\n", tid, self->depth * 2, "",
	    basename(copyinstr(arg0)), arg2, copyinstr(arg1));
	self->depth++;
}

python$1:::function__return
/self->depth > 0/
{
	self->depth--;
	printf("%6d %*s<- %s:%d %s\n", tid, self->depth * 2, "",
	    basename(copyinstr(arg0)), arg2, copyinstr(arg1));
}
