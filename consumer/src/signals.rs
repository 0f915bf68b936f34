//! SIGINT/SIGTERM handling for a tracing session: the first signal asks for a graceful
//! stop (END fires, aggregations print), the second makes dtrace impatient (§12.5).

use std::sync::atomic::{AtomicU32, Ordering};

static INTERRUPTS: AtomicU32 = AtomicU32::new(0);

extern "C" fn count_interrupt(_signal: libc::c_int) {
    INTERRUPTS.fetch_add(1, Ordering::SeqCst);
}

/// Installs the handlers for SIGINT and SIGTERM, unless the signal is ignored (as
/// dtrace(1) does, so `nohup`/background use keeps its meaning).
pub fn install_interrupt_handlers() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: querying and installing a handler that only touches an atomic, which
        // is async-signal-safe.
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut previous) == 0
                && previous.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction =
                count_interrupt as extern "C" fn(libc::c_int) as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// How many interrupting signals arrived so far.
pub fn interrupt_count() -> u32 {
    INTERRUPTS.load(Ordering::SeqCst)
}
