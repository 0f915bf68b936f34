/*
 * sleep_durations.d - how long do processes ask to sleep for? Finds busy
 * polling loops (many tiny sleeps) and long timers.
 *
 * Shows: a struct definition mirroring the kernel's struct timespec, a
 * typedef for it, copyin() of a user-space structure and -> member access,
 * sizeof, lquantize() of milliseconds. clock_nanosleep() calls with the
 * TIMER_ABSTIME flag (arg1 == 1) carry an absolute time and are left out.
 * Run:   dtrace -s sleep_durations.d    (Ctrl-C to print)
 */

#pragma D option quiet

struct sleep_request {
	int64_t tv_sec;
	int64_t tv_nsec;
};

typedef struct sleep_request sleep_request_t;

syscall::clock_nanosleep:entry
/arg1 == 0/
{
	this->request = (sleep_request_t *)copyin(arg2, sizeof (sleep_request_t));
	this->ms = this->request->tv_sec * 1000 + this->request->tv_nsec / 1000000;
	@requested_ms[execname] = lquantize(this->ms, 0, 1000, 10);
}

syscall::nanosleep:entry
{
	this->request = (sleep_request_t *)copyin(arg0, sizeof (sleep_request_t));
	this->ms = this->request->tv_sec * 1000 + this->request->tv_nsec / 1000000;
	@requested_ms[execname] = lquantize(this->ms, 0, 1000, 10);
}

END
{
	printf("Requested sleep durations (ms) by process:\n");
	printa(@requested_ms);
}
