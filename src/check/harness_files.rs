//! The check harness as the binary carries it: the entry script `harness.py` and the `graphbreak_harness`
//! package beside it (src/check/harness/, one module per concern), embedded file by file and unpacked into
//! the cache as one directory per version (`harness-<hash>/`), so every run uses exactly the harness it was
//! built with and concurrent checks never see a half-written one.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::provision::fnv1a;

/// Every file of src/check/harness/ (a test keeps this list equal to the directory), path relative to it.
pub const FILES: &[(&str, &str)] = &[
    ("harness.py", include_str!("harness/harness.py")),
    (
        "graphbreak_harness/__init__.py",
        include_str!("harness/graphbreak_harness/__init__.py"),
    ),
    (
        "graphbreak_harness/case.py",
        include_str!("harness/graphbreak_harness/case.py"),
    ),
    (
        "graphbreak_harness/dynamo_facts.py",
        include_str!("harness/graphbreak_harness/dynamo_facts.py"),
    ),
    (
        "graphbreak_harness/entry.py",
        include_str!("harness/graphbreak_harness/entry.py"),
    ),
    (
        "graphbreak_harness/fork_server.py",
        include_str!("harness/graphbreak_harness/fork_server.py"),
    ),
    (
        "graphbreak_harness/frames.py",
        include_str!("harness/graphbreak_harness/frames.py"),
    ),
    (
        "graphbreak_harness/parity.py",
        include_str!("harness/graphbreak_harness/parity.py"),
    ),
    (
        "graphbreak_harness/probe.py",
        include_str!("harness/graphbreak_harness/probe.py"),
    ),
    (
        "graphbreak_harness/profiling.py",
        include_str!("harness/graphbreak_harness/profiling.py"),
    ),
    (
        "graphbreak_harness/records.py",
        include_str!("harness/graphbreak_harness/records.py"),
    ),
    (
        "graphbreak_harness/run.py",
        include_str!("harness/graphbreak_harness/run.py"),
    ),
    (
        "graphbreak_harness/run_compile.py",
        include_str!("harness/graphbreak_harness/run_compile.py"),
    ),
    (
        "graphbreak_harness/run_parity.py",
        include_str!("harness/graphbreak_harness/run_parity.py"),
    ),
    (
        "graphbreak_harness/steps.py",
        include_str!("harness/graphbreak_harness/steps.py"),
    ),
    (
        "graphbreak_harness/trace_map.py",
        include_str!("harness/graphbreak_harness/trace_map.py"),
    ),
];

/// The script graphbreak runs: `python harness.py env | run | serve` (its directory is the package's parent,
/// so `import graphbreak_harness` finds the copy beside it).
const ENTRY: &str = "harness.py";

/// Every path and content, in order: what the version is a hash of, and what the result cache keys on.
pub fn contents() -> &'static str {
    static CONTENTS: OnceLock<String> = OnceLock::new();
    CONTENTS.get_or_init(|| {
        let mut text = String::new();
        for (path, source) in FILES {
            text.push_str(path);
            text.push('\0');
            text.push_str(source);
            text.push('\0');
        }
        text
    })
}

/// The directory one version of the harness lives in under the cache.
fn version_dir(cache: &Path) -> PathBuf {
    cache.join(format!("harness-{:016x}", fnv1a(contents().as_bytes())))
}

/// True when every embedded file is in `dir` with exactly its content (Python's `__pycache__` may sit beside).
fn complete(dir: &Path) -> bool {
    FILES.iter().all(|(path, source)| {
        std::fs::read_to_string(dir.join(path)).is_ok_and(|existing| existing == *source)
    })
}

fn write_files(dir: &Path) -> std::io::Result<()> {
    for (path, source) in FILES {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, source)?;
    }
    Ok(())
}

/// A fresh name beside the versioned directory, unique to this process and moment.
fn scratch(cache: &Path, what: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    cache.join(format!(
        ".harness-{what}-{}-{nanos}.tmp",
        std::process::id()
    ))
}

/// Unpacks the embedded harness under the cache once per version and returns the entry script's path.
/// Written into a scratch directory and renamed into place whole: a concurrent check either finds the
/// complete directory or renames its own identical copy; a damaged copy (edited, half-deleted) is moved
/// aside and replaced.
pub fn install(cache: &Path) -> Result<PathBuf, String> {
    let dir = version_dir(cache);
    if complete(&dir) {
        return Ok(dir.join(ENTRY));
    }
    std::fs::create_dir_all(cache)
        .map_err(|e| format!("cannot create cache directory {}: {e}", cache.display()))?;
    let partial = scratch(cache, "new");
    let unpacked = write_files(&partial)
        .map_err(|e| format!("cannot write the harness under {}: {e}", partial.display()));
    if let Err(message) = unpacked {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(message);
    }
    let mut renamed = std::fs::rename(&partial, &dir);
    if renamed.is_err() && !complete(&dir) {
        // Not another check's finished copy: a damaged one. Move it aside (a concurrent run may still
        // read it) and put ours in its place.
        let stale = scratch(cache, "stale");
        if std::fs::rename(&dir, &stale).is_ok() {
            let _ = std::fs::remove_dir_all(&stale);
        }
        renamed = std::fs::rename(&partial, &dir);
    }
    let _ = std::fs::remove_dir_all(&partial);
    match renamed {
        Ok(()) => Ok(dir.join(ENTRY)),
        Err(_) if complete(&dir) => Ok(dir.join(ENTRY)),
        Err(e) => Err(format!(
            "cannot install the harness at {}: {e}",
            dir.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded list is the directory: a module added to the package but not here would be missing
    /// from every installed copy.
    #[test]
    fn embedded_files_are_the_harness_directory() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check/harness");
        let mut on_disk = Vec::new();
        let mut pending = vec![root.clone()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if path.is_dir() {
                    if name != "__pycache__" {
                        pending.push(path);
                    }
                } else if name.ends_with(".py") {
                    let relative = path.strip_prefix(&root).unwrap();
                    on_disk.push(relative.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        on_disk.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(path, _)| path.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
    }

    #[test]
    fn concurrent_installs_share_one_complete_directory() {
        let cache = tempfile::tempdir().unwrap();
        let entries: Vec<PathBuf> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| install(cache.path()).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(entries.windows(2).all(|pair| pair[0] == pair[1]));
        let dir = entries[0].parent().unwrap();
        assert!(complete(dir));
        let names: Vec<String> = std::fs::read_dir(cache.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names.len(),
            1,
            "no scratch directory left behind: {names:?}"
        );
    }

    #[test]
    fn a_damaged_copy_is_replaced() {
        let cache = tempfile::tempdir().unwrap();
        let entry = install(cache.path()).unwrap();
        let module = entry.parent().unwrap().join(FILES[1].0);
        std::fs::write(&module, "broken").unwrap();
        assert_eq!(install(cache.path()).unwrap(), entry);
        assert!(complete(entry.parent().unwrap()));
    }
}
