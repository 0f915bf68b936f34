//! Running a step of the session bound to one CPU, so that the BEGIN or END probe it
//! fires runs there: the CPU the thread is on, or the one the `cpu` option names.

/// Runs `work` with this thread bound to `cpu` (the `cpu` option), or to the CPU it is
/// on when that is None, and returns the CPU it ran on (None when the binding failed,
/// and `work` then ran unbound).
pub fn run_on_cpu<T>(cpu: Option<u32>, work: impl FnOnce() -> T) -> (Option<u32>, T) {
    // SAFETY: the sets are plain bit masks, zeroed before use; the calls only read or
    // write them and affect this thread alone.
    unsafe {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        let mut previous: libc::cpu_set_t = std::mem::zeroed();
        let cpu = match cpu {
            Some(cpu) => cpu as i32,
            None => libc::sched_getcpu(),
        };
        if cpu < 0
            || cpu as usize >= libc::CPU_SETSIZE as usize
            || libc::sched_getaffinity(0, size, &mut previous) != 0
        {
            return (None, work());
        }
        let mut only: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut only);
        if libc::sched_setaffinity(0, size, &only) != 0 {
            return (None, work());
        }
        let result = work();
        libc::sched_setaffinity(0, size, &previous);
        (Some(cpu as u32), result)
    }
}
