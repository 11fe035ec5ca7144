//! The result cache: `check` re-runs a case only when something it depended on changed.
//!
//! Two levels, so the key covers exactly what the case's last run read:
//! - the **recipe** is the hash of the static inputs: the request (case file path, factory, parameters,
//!   device, compile overrides, warm-up and steps, measure, profile), the timeout and working directory,
//!   the interpreter (as named, its executable, Python version, torch version, git build and location,
//!   CUDA version, GPU name, driver, platform), graphbreak's version and harness, and every `TORCH*`,
//!   `PYTORCH*` and `PYTHON*` environment variable. `recipes/<recipe>.json` lists the files the last run depended on:
//!   the case file, every file of its trace map (`traced`), and the modules imported and files opened
//!   while building the case (`build_inputs`, recorded by the harness).
//! - the **key** hashes the recipe with the current content of each of those files (a missing file hashes
//!   as missing), so an edit to any of them — a traced helper, a config the factory read — is a new key.
//!   `results/<key>.json` holds the stored result.
//!
//! A result is stored only when the run can vouch for its inputs: status ok (any non-death status with
//! `--cache-failures`), a trace map, a complete `build_inputs`, and no input modified while the case ran
//! (its file time later than the case's start). Files are content-addressed and written by rename, so
//! concurrent shards sharing a directory never see half a file; the store is bounded by size and evicts
//! the least recently used results first (a hit refreshes a result's file time). Any failure to read or
//! write the store is a warning and a miss: never a failed check, never a stale hit.

mod sha256;
mod unrun;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::execute::Interpreter;
use super::record::{CacheMark, CaseRequest, CaseResult, Status};
use super::targets::Case;

/// Bumped when the layout or the meaning of a key changes: older entries then simply never match.
const FORMAT: &str = "graphbreak-result-cache 1";
/// Default bound of the store (`--cache-size`).
pub const DEFAULT_SIZE_MIB: u64 = 512;

/// How `check` uses the store this run.
#[derive(Debug, Clone)]
pub struct ResultCache {
    dir: PathBuf,
    /// Serve stored results (false with `--refresh`).
    lookup: bool,
    /// Store failed results too (`--cache-failures`); deaths (crash, timeout, oom, harness error) never.
    store_failures: bool,
    max_bytes: u64,
}

/// The static half of a case's key.
#[derive(Debug, Clone)]
pub struct Recipe {
    pub key: String,
}

/// `recipes/<recipe>.json`: what the last stored run of this recipe depended on.
#[derive(Serialize, Deserialize)]
struct RecipeEntry {
    format: String,
    recipe: String,
    files: Vec<Dependency>,
}

/// One file a case depended on, and the lines of it left out of the key: the bodies of functions that
/// never ran (`unrun.rs`) in an imported module the compile did not trace.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Dependency {
    path: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    skip: Vec<(u32, u32)>,
}

/// `results/<key>.json`.
#[derive(Serialize, Deserialize)]
struct StoredResult {
    format: String,
    key: String,
    recipe: String,
    /// When the run that produced it finished (seconds since the epoch).
    stored_at: f64,
    /// Each input file and the SHA-256 of its content when stored ("missing": it did not exist).
    files: Vec<(String, String)>,
    result: CaseResult,
}

impl ResultCache {
    pub fn new(dir: PathBuf, lookup: bool, store_failures: bool, size_mib: u64) -> Self {
        ResultCache {
            dir,
            lookup,
            store_failures,
            max_bytes: size_mib.saturating_mul(1024 * 1024),
        }
    }

    /// The recipe of one (case, interpreter) request under this run's options.
    pub fn recipe(
        request: &CaseRequest,
        case: &Case,
        interpreter: &Interpreter,
        timeout: f64,
        harness_source: &str,
    ) -> Recipe {
        let env = &interpreter.environment;
        let extra = |key: &str| {
            env.extra
                .get(key)
                .map(|value| value.to_string())
                .unwrap_or_default()
        };
        let mut text = String::new();
        let mut line = |name: &str, value: &str| {
            text.push_str(name);
            text.push('\t');
            text.push_str(value);
            text.push('\n');
        };
        line("format", FORMAT);
        line("graphbreak", env!("CARGO_PKG_VERSION"));
        line("harness", &sha256::hex(harness_source.as_bytes()));
        line(
            "request",
            &serde_json::to_string(request).unwrap_or_default(),
        );
        line("cwd", &case.cwd.display().to_string());
        line("timeout", &timeout.to_string());
        line("python", &interpreter.path.display().to_string());
        let show = |value: &Option<String>| value.clone().unwrap_or_default();
        line("python_executable", &show(&env.python_executable));
        line("python_version", &show(&env.python));
        line("torch_version", &show(&env.torch_version));
        line("torch_git_version", &extra("torch_git_version"));
        line("torch_file", &extra("torch_file"));
        line("cuda_available", &env.cuda_available.to_string());
        line("cuda_version", &show(&env.cuda_version));
        line("gpu_name", &show(&env.gpu_name));
        line("driver_version", &show(&env.driver_version));
        line("platform", &show(&env.platform));
        for (name, value) in torch_environment() {
            line(&format!("env {name}"), &value);
        }
        Recipe {
            key: sha256::hex(text.as_bytes()),
        }
    }

    /// The stored result for `recipe` if every file its last run depended on still has the content it had.
    pub fn lookup(&self, recipe: &Recipe) -> Option<CaseResult> {
        if !self.lookup {
            return None;
        }
        let entry: RecipeEntry = self.read_json(&self.recipe_path(&recipe.key))?;
        if entry.format != FORMAT || entry.recipe != recipe.key {
            return None;
        }
        let files: Vec<(String, String)> = match entry.files.iter().map(hash_dependency).collect() {
            Ok(files) => files,
            Err(message) => {
                warn(&format!("{message}; running the case"));
                return None;
            }
        };
        let key = full_key(&recipe.key, &files);
        let path = self.result_path(&key);
        let stored: StoredResult = self.read_json(&path)?;
        if stored.format != FORMAT || stored.key != key || stored.recipe != recipe.key {
            return None;
        }
        // A failure stored under --cache-failures is re-run by a run that did not ask for it.
        if !self.keeps(&stored.result.status) {
            return None;
        }
        // Least recently used goes first: a hit makes this result the youngest.
        let _ = std::fs::File::options()
            .append(true)
            .open(&path)
            .and_then(|file| file.set_modified(SystemTime::now()));
        let mut result = stored.result;
        result.cache = Some(CacheMark {
            hit: true,
            key: Some(key),
            from: Some(rfc3339(stored.stored_at)),
            ..CacheMark::default()
        });
        Some(result)
    }

    /// Stores a fresh result (when it can vouch for its inputs) and marks it with its key.
    /// `started`: when the case's process started (an input modified after it may not be what ran).
    pub fn store(
        &self,
        recipe: &Recipe,
        case: &Case,
        result: &mut CaseResult,
        started: SystemTime,
    ) {
        let mark = |key: Option<String>, why: Option<String>| {
            let mut mark = CacheMark {
                key,
                ..CacheMark::default()
            };
            if let Some(why) = why {
                mark.extra.insert("not_stored".into(), why.into());
            }
            Some(mark)
        };
        match self.try_store(recipe, case, result, started) {
            Ok(key) => result.cache = mark(Some(key), None),
            Err(Skip::Ineligible(why)) => result.cache = mark(None, Some(why)),
            Err(Skip::Failed(why)) => {
                warn(&why);
                result.cache = mark(None, Some(why));
            }
        }
    }

    fn try_store(
        &self,
        recipe: &Recipe,
        case: &Case,
        result: &CaseResult,
        started: SystemTime,
    ) -> Result<String, Skip> {
        let status = &result.status;
        if !self.keeps(status) {
            return Err(Skip::Ineligible(format!(
                "status {status} (failures are re-run; --cache-failures stores them)"
            )));
        }
        // A case that failed before compiling traced nothing; otherwise no map means this torch cannot
        // say what the compile read.
        let nothing_compiled = matches!(status, Status::FactoryError | Status::EagerError);
        let no_trace = BTreeMap::new();
        let traced = match &result.traced {
            Some(traced) => traced,
            None if nothing_compiled => &no_trace,
            None => {
                return Err(Skip::Ineligible(
                    "this torch reports no trace map, so what the compile read is unknown".into(),
                ));
            }
        };
        let inputs = match &result.build_inputs {
            Some(inputs) if inputs.complete => inputs,
            _ => {
                return Err(Skip::Ineligible(
                    "the harness could not record the files the case's build read".into(),
                ));
            }
        };
        let mut paths: BTreeSet<&String> = BTreeSet::new();
        let case_file = case.file.display().to_string();
        paths.insert(&case_file);
        paths.extend(traced.keys());
        paths.extend(&inputs.imported);
        paths.extend(&inputs.opened);
        if let Some(changed) = paths
            .iter()
            .find(|file| modified_after(Path::new(file), started))
        {
            return Err(Skip::Ineligible(format!(
                "{changed} changed while the case ran"
            )));
        }
        let mut files = Vec::with_capacity(paths.len());
        let mut hashed = Vec::with_capacity(paths.len());
        for path in paths {
            let bytes = read_dependency(path).map_err(Skip::Failed)?;
            // Traced files are keyed whole: the trace map says which lines compiled, not which lines
            // could change what compiles. Other Python files leave out the bodies that never ran.
            let ran = inputs.ran.as_ref().and_then(|ran| ran.get(path));
            let skip = match (&bytes, ran) {
                (Some(bytes), Some(ran)) if path.ends_with(".py") && !traced.contains_key(path) => {
                    std::str::from_utf8(bytes)
                        .map_or(Vec::new(), |source| unrun::unrun_bodies(source, ran))
                }
                _ => Vec::new(),
            };
            hashed.push((path.clone(), content_hash(bytes.as_deref(), &skip)));
            files.push(Dependency {
                path: path.clone(),
                skip,
            });
        }
        let key = full_key(&recipe.key, &hashed);
        let mut stored_result = result.clone();
        stored_result.cache = None;
        stored_result.cross_check = None;
        let stored = StoredResult {
            format: FORMAT.into(),
            key: key.clone(),
            recipe: recipe.key.clone(),
            stored_at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            files: hashed,
            result: stored_result,
        };
        let entry = RecipeEntry {
            format: FORMAT.into(),
            recipe: recipe.key.clone(),
            files,
        };
        let failed = |e: String| Skip::Failed(format!("cannot store the result: {e}"));
        create_dir_all_self_ignoring(&self.dir.join("results")).map_err(failed)?;
        create_dir_all_self_ignoring(&self.dir.join("recipes")).map_err(failed)?;
        // The result first: a recipe never points at a key whose result was not written.
        write_atomically(&self.result_path(&key), &to_json(&stored)?).map_err(failed)?;
        write_atomically(&self.recipe_path(&recipe.key), &to_json(&entry)?).map_err(failed)?;
        self.evict();
        Ok(key)
    }

    /// Results of this status are stored and served: ok ones, and failures other than a process's
    /// death when asked (`--cache-failures`).
    fn keeps(&self, status: &Status) -> bool {
        status.is_ok() || (self.store_failures && !status.is_death())
    }

    fn recipe_path(&self, recipe: &str) -> PathBuf {
        self.dir.join("recipes").join(format!("{recipe}.json"))
    }

    fn result_path(&self, key: &str) -> PathBuf {
        self.dir.join("results").join(format!("{key}.json"))
    }

    /// A JSON file of the store; absent = None, unreadable or malformed = a warning and None.
    fn read_json<T: for<'de> Deserialize<'de>>(&self, path: &Path) -> Option<T> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                warn(&format!(
                    "cannot read {}: {e}; running the case",
                    path.display()
                ));
                return None;
            }
        };
        match serde_json::from_str(&text) {
            Ok(value) => Some(value),
            Err(e) => {
                warn(&format!(
                    "{} is not a cache entry ({e}); running the case",
                    path.display()
                ));
                None
            }
        }
    }

    /// Removes the least recently used results until the store fits its bound.
    fn evict(&self) {
        let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        let mut total = 0u64;
        for folder in ["results", "recipes"] {
            let Ok(listing) = std::fs::read_dir(self.dir.join(folder)) else {
                continue;
            };
            for item in listing.flatten() {
                let Ok(metadata) = item.metadata() else {
                    continue;
                };
                total += metadata.len();
                if folder == "results" {
                    let modified = metadata.modified().unwrap_or(UNIX_EPOCH);
                    entries.push((modified, metadata.len(), item.path()));
                }
            }
        }
        if total <= self.max_bytes {
            return;
        }
        entries.sort();
        for (_, size, path) in entries {
            if total <= self.max_bytes {
                break;
            }
            // Another shard may have removed it already: either way it no longer counts.
            let _ = std::fs::remove_file(&path);
            total = total.saturating_sub(size);
        }
    }
}

enum Skip {
    /// The result cannot vouch for its inputs (a failure, no trace map, ...): not stored, no warning.
    Ineligible(String),
    /// The store could not be read or written: a warning.
    Failed(String),
}

fn to_json<T: Serialize>(value: &T) -> Result<String, Skip> {
    serde_json::to_string(value).map_err(|e| Skip::Failed(format!("cannot encode the entry: {e}")))
}

fn warn(message: &str) {
    eprintln!("graphbreak: warning: result cache: {message}");
}

/// `TORCH*`, `PYTORCH*` and `PYTHON*` variables of graphbreak's environment (inherited by every case:
/// torch's switches, and where Python finds modules, e.g. PYTHONPATH), sorted.
fn torch_environment() -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| {
            let name = name.into_string().ok()?;
            ["TORCH", "PYTORCH", "PYTHON"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
                .then(|| (name, value.to_string_lossy().into_owned()))
        })
        .collect();
    found.sort();
    found
}

/// A dependency's content (None: it does not exist). A file that exists but cannot be read is an error:
/// its content is unknown, so no key can be made.
fn read_dependency(path: &str) -> Result<Option<Vec<u8>>, String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {path}: {e}")),
    }
}

/// The path and the SHA-256 of its content now, less the skipped lines ("missing": no such file).
fn hash_dependency(dependency: &Dependency) -> Result<(String, String), String> {
    let bytes = read_dependency(&dependency.path)?;
    Ok((
        dependency.path.clone(),
        content_hash(bytes.as_deref(), &dependency.skip),
    ))
}

/// SHA-256 of the file, or of its lines outside `skip` (1-based, inclusive) after the ranges themselves:
/// lines moving in or out of a range change the hash.
fn content_hash(bytes: Option<&[u8]>, skip: &[(u32, u32)]) -> String {
    let Some(bytes) = bytes else {
        return "missing".into();
    };
    if skip.is_empty() {
        return sha256::hex(bytes);
    }
    let mut hasher = sha256::Sha256::default();
    for (start, end) in skip {
        hasher.update(format!("skip {start}-{end}\n").as_bytes());
    }
    for (index, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let number = index as u32 + 1;
        if !skip
            .iter()
            .any(|(start, end)| (*start..=*end).contains(&number))
        {
            hasher.update(line);
        }
    }
    hasher.hex()
}

fn full_key(recipe: &str, files: &[(String, String)]) -> String {
    let mut hasher = sha256::Sha256::default();
    hasher.update(FORMAT.as_bytes());
    hasher.update(b"\n");
    hasher.update(recipe.as_bytes());
    for (file, hash) in files {
        hasher.update(b"\n");
        hasher.update(file.as_bytes());
        hasher.update(b"\0");
        hasher.update(hash.as_bytes());
    }
    hasher.hex()
}

fn modified_after(path: &Path, started: SystemTime) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|modified| modified > started)
}

/// Writes `text` to a private file beside `path` and renames it into place: a reader (another shard)
/// sees the old file or the new one, never part of one.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let partial = path.with_extension(format!(
        "tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = std::fs::File::create(&partial)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .and_then(|()| std::fs::rename(&partial, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    Ok(())
}

/// `create_dir_all`, and a `.graphbreak/` folder it creates on the way gets a `.gitignore` of `*`: what
/// graphbreak writes there (results stream, result cache) never shows up as a change to commit.
pub fn create_dir_all_self_ignoring(dir: &Path) -> Result<(), String> {
    let created: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|ancestor| !ancestor.as_os_str().is_empty() && !ancestor.exists())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for folder in created {
        if folder.file_name().is_some_and(|name| name == ".graphbreak") {
            let ignore = folder.join(".gitignore");
            std::fs::write(&ignore, "*\n")
                .map_err(|e| format!("cannot write {}: {e}", ignore.display()))?;
        }
    }
    Ok(())
}

/// Seconds since the epoch as `2026-12-01T14:05:09Z`.
fn rfc3339(seconds: f64) -> String {
    let total = seconds.max(0.0) as i64;
    let (days, rest) = (total.div_euclid(86_400), total.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_rfc3339() {
        assert_eq!(rfc3339(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400.0), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_960_800.5), "2026-11-29T14:00:00Z");
    }

    #[test]
    fn a_changed_missing_or_added_file_is_a_new_key() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.py");
        std::fs::write(&a, "x = 1\n").unwrap();
        let files = [
            Dependency {
                path: a.display().to_string(),
                skip: Vec::new(),
            },
            Dependency {
                path: dir.path().join("gone.yaml").display().to_string(),
                skip: Vec::new(),
            },
        ];
        let key = |recipe: &str| {
            let hashed: Vec<(String, String)> =
                files.iter().map(|f| hash_dependency(f).unwrap()).collect();
            full_key(recipe, &hashed)
        };
        let first = key("r");
        assert_eq!(first, key("r"), "stable");
        assert_ne!(first, key("other"), "recipe");
        std::fs::write(&a, "x = 2\n").unwrap();
        let edited = key("r");
        assert_ne!(first, edited, "content");
        std::fs::write(dir.path().join("gone.yaml"), "").unwrap();
        assert_ne!(edited, key("r"), "a file appearing");
    }

    #[test]
    fn skipped_lines_leave_the_key_and_moved_lines_do_not() {
        let hash = |text: &str| content_hash(Some(text.as_bytes()), &[(2, 3)]);
        let base = hash("def f():\n    a = 1\n    return a\nx = f\n");
        assert_eq!(
            base,
            hash("def f():\n    a = 2\n    return a\nx = f\n"),
            "inside"
        );
        assert_ne!(
            base,
            hash("def f():\n    a = 1\n    return a\nx = g\n"),
            "outside"
        );
        assert_ne!(
            base,
            hash("\ndef f():\n    a = 1\n    return a\nx = f\n"),
            "shifted"
        );
        assert_ne!(
            base,
            content_hash(Some(b"def f():\n    a = 1\n    return a\nx = f\n"), &[])
        );
    }

    #[test]
    fn a_created_graphbreak_folder_ignores_itself() {
        let dir = tempfile::tempdir().unwrap();
        create_dir_all_self_ignoring(&dir.path().join(".graphbreak/cache/results")).unwrap();
        let ignore = dir.path().join(".graphbreak/.gitignore");
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "*\n");
        // An existing folder is the user's: nothing is written into it.
        let theirs = dir.path().join("theirs/.graphbreak");
        std::fs::create_dir_all(&theirs).unwrap();
        create_dir_all_self_ignoring(&theirs.join("cache")).unwrap();
        assert!(!theirs.join(".gitignore").exists());
    }

    #[test]
    fn eviction_removes_the_oldest_results_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResultCache {
            dir: dir.path().to_path_buf(),
            lookup: true,
            store_failures: false,
            max_bytes: 2500,
        };
        let results = dir.path().join("results");
        std::fs::create_dir_all(&results).unwrap();
        let now = SystemTime::now();
        for (index, name) in ["old", "middle", "young"].iter().enumerate() {
            let path = results.join(format!("{name}.json"));
            std::fs::write(&path, vec![b'x'; 1000]).unwrap();
            let file = std::fs::File::options().append(true).open(&path).unwrap();
            file.set_modified(now - std::time::Duration::from_secs(100 - index as u64 * 10))
                .unwrap();
        }
        cache.evict();
        assert!(!results.join("old.json").exists());
        assert!(results.join("middle.json").exists());
        assert!(results.join("young.json").exists());
    }
}
