//! Process liveness for the single-writer rule (docs/formats/store.md §9):
//! natively, a process is alive if signalling it with signal 0 succeeds or
//! fails with EPERM. The browser has no equivalent: the page holds a Web Lock
//! per store (`Store::close_open_runs`).

/// Whether process `pid` exists (natively, on Unix).
#[cfg(unix)]
pub fn is_process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        // 0 and negatives address process groups, never one process.
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Elsewhere a pid cannot be checked: assume the process is alive, so a
/// second writer is refused rather than two writing at once.
#[cfg(not(unix))]
pub fn is_process_alive(_pid: u32) -> bool {
    true
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_reaped_child_is_not() {
        assert!(is_process_alive(std::process::id()));
        assert!(!is_process_alive(0));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!is_process_alive(pid));
        // pid 1 exists but belongs to another user when not root: EPERM still means alive.
        assert!(is_process_alive(1));
    }
}
