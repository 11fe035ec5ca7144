//! Settings of the global allocator (mimalloc, `main.rs`).
//!
//! mimalloc returns freed memory to the OS after a delay (`purge_delay`, 1 s in v3). A scan frees
//! each file's AST and model while the next files are parsed, so the freed pages were purged and
//! faulted in (and zeroed) again many times over: on transformers + timm with one worker, ~6.5k
//! page faults and ~0.3 s of system time on a 1.3 s scan, against ~300 faults and 0.07 s when
//! nothing is purged (docs/measurements/2026-12-01-scan-speed.md). A run is one short-lived
//! process, so keeping the pages costs only a few MB of peak memory.

use std::ffi::{c_int, c_long};

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_t` (`include/mimalloc.h`; the crate
/// `libmimalloc-sys` builds v3 unless its `v2` feature is on, where the index differs). The test
/// below checks it against the option's documented default.
const PURGE_DELAY: c_int = 15;

unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    #[cfg(test)]
    fn mi_option_get(option: c_int) -> c_long;
}

/// Never return freed pages to the OS during this run (`purge_delay = -1`).
pub fn keep_freed_pages() {
    // SAFETY: mimalloc's options are plain integers guarded by mimalloc itself; setting one is
    // allowed at any time (mimalloc reads `purge_delay` whenever it considers a purge).
    unsafe { mi_option_set(PURGE_DELAY, -1) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purge_delay_index_names_the_purge_delay_option() {
        // v3's default purge delay is 1000 ms; the neighbouring options default to other values
        // (eager-commit delay 1, NUMA nodes 0), so a shifted index reads something else.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reading an option has no precondition.
        assert_eq!(unsafe { mi_option_get(PURGE_DELAY) }, 1000);
    }
}
