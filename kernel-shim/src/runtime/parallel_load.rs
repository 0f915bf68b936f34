//! Loading many probe programs at once on several threads. The kernel verifies programs
//! loaded with privileges in parallel (only unprivileged loads share a lock), and
//! verification is most of the time it takes to enable hundreds of probes (`syscall:::`
//! is about 700 programs), so a session's programs are loaded on as many threads as the
//! machine has CPUs, at most `MAX_LOADER_THREADS`.

use crate::sys::{AttachType, LoadError, ProgFd, ProgramType};
use crate::translate::TranslatedProgram;

/// More threads than this gain little: the programs of one session are similar in size
/// and each thread already takes a share of them.
const MAX_LOADER_THREADS: usize = 8;

/// One program to load: what `TranslatedProgram::load_for_attach_type` takes.
pub struct ProgramToLoad {
    pub translated: TranslatedProgram,
    pub program_type: ProgramType,
    pub attach_type: Option<AttachType>,
    pub name: String,
}

/// Loads every program of `programs` with `log_level`; the results are in the order of
/// `programs`, whichever thread loaded each.
pub fn load_programs(programs: &[ProgramToLoad], log_level: u32) -> Vec<Result<ProgFd, LoadError>> {
    let load = |program: &ProgramToLoad| {
        program.translated.load_for_attach_type(
            program.program_type,
            program.attach_type,
            &program.name,
            log_level,
        )
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |count| count.get())
        .min(MAX_LOADER_THREADS)
        .min(programs.len());
    if threads <= 1 {
        return programs.iter().map(load).collect();
    }
    let share = programs.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = programs
            .chunks(share)
            .map(|chunk| scope.spawn(move || chunk.iter().map(load).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| match worker.join() {
                Ok(results) => results,
                // A loader thread only calls bpf(2); should it panic all the same, the
                // panic goes on in this thread.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}
