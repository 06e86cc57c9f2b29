//! Resource limits of a worker process, set between fork and exec.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes the child started by `cmd` run under a data-size limit of
/// `max_mem` bytes (none when 0) and die with its parent thread.
///
/// `RLIMIT_DATA` (Linux 4.7+) counts the heap, anonymous mappings and
/// thread stacks, but not the read-only file mappings the engines read
/// inputs through; `RLIMIT_AS` would count those, so one large PDF would
/// hit a limit meant for runaway allocations. Soft and hard limits are
/// equal, so the worker cannot raise its own.
#[allow(unsafe_code)]
pub(crate) fn limit_child(cmd: &mut Command, max_mem: u64) {
    let limit = libc::rlim_t::try_from(max_mem).unwrap_or(libc::RLIM_INFINITY);
    let hook = move || -> std::io::Result<()> {
        if limit > 0 {
            let rl = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            // SAFETY: setrlimit reads the struct we pass and changes only
            // this (child) process; it is async-signal-safe.
            if unsafe { libc::setrlimit(libc::RLIMIT_DATA, &rl) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        // SAFETY: prctl(PR_SET_PDEATHSIG) takes plain integers and only
        // marks this process; async-signal-safe. A failure is harmless
        // (the worker then outlives a killed parent until its stdin ends).
        unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
        Ok(())
    };
    // SAFETY: the hook runs in the forked child before exec. It only calls
    // the two async-signal-safe functions above on values copied into the
    // closure; it allocates nothing and takes no lock, so the state of
    // other threads at fork time cannot deadlock or corrupt it.
    unsafe { cmd.pre_exec(hook) };
}
