//! `graphbreak cache list|clean`: what `check` keeps on disk, with sizes, and a way to remove it.
//! The user cache (`$XDG_CACHE_HOME/graphbreak`, else `~/.cache/graphbreak`) holds the per-torch
//! venvs of `--torch`, the compile caches (Inductor/Triton, per torch version), the harness
//! copies and the interpreter probes; the project's `.graphbreak/cache` is listed too when present.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub enum CacheCommand {
    /// List the cached venvs, compile caches, harness copies and probes, with their sizes.
    List,
    /// Remove cached entries: all of them, or only the kinds named.
    Clean {
        /// Kinds to remove (default: all).
        #[arg(value_enum)]
        kinds: Vec<Kind>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// `--torch X.Y` virtual environments (`venvs/torch-X.Y`).
    Venvs,
    /// Inductor and Triton caches per torch version (`torch-X.Y.Z/`).
    Compile,
    /// Copies of the embedded harness, one per graphbreak version.
    Harness,
    /// Cached interpreter probes.
    Probes,
    /// The current project's `.graphbreak/cache`.
    Project,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Venvs => "venv",
            Kind::Compile => "compile cache",
            Kind::Harness => "harness",
            Kind::Probes => "probes",
            Kind::Project => "project cache",
        }
    }
}

struct Entry {
    kind: Kind,
    path: PathBuf,
    bytes: u64,
}

pub fn run(command: &CacheCommand) -> ExitCode {
    let user = crate::check::cache_dir();
    let project = std::env::current_dir()
        .unwrap_or_default()
        .join(".graphbreak")
        .join("cache");
    let entries = entries(&user, &project);
    match command {
        CacheCommand::List => {
            println!("cache: {}", user.display());
            for entry in &entries {
                println!(
                    "{:>10}  {:<13}  {}",
                    human(entry.bytes),
                    entry.kind.label(),
                    entry.path.display()
                );
            }
            let total: u64 = entries.iter().map(|e| e.bytes).sum();
            println!(
                "{:>10}  total in {} entr{}",
                human(total),
                entries.len(),
                if entries.len() == 1 { "y" } else { "ies" }
            );
            ExitCode::SUCCESS
        }
        CacheCommand::Clean { kinds } => {
            let mut freed = 0u64;
            let mut removed = 0usize;
            for entry in entries
                .iter()
                .filter(|e| kinds.is_empty() || kinds.contains(&e.kind))
            {
                let result = if entry.path.is_dir() {
                    std::fs::remove_dir_all(&entry.path)
                } else {
                    std::fs::remove_file(&entry.path)
                };
                match result {
                    Ok(()) => {
                        freed += entry.bytes;
                        removed += 1;
                    }
                    Err(err) => {
                        eprintln!(
                            "graphbreak: error: cannot remove {}: {err}",
                            entry.path.display()
                        );
                        return ExitCode::from(2);
                    }
                }
            }
            println!(
                "Removed {removed} entr{} ({} freed).",
                if removed == 1 { "y" } else { "ies" },
                human(freed)
            );
            ExitCode::SUCCESS
        }
    }
}

/// Every cache entry graphbreak made, classified by what made it; anything else in the directory
/// is not ours and is left alone.
fn entries(user: &Path, project: &Path) -> Vec<Entry> {
    let mut found = Vec::new();
    let children = |dir: &Path| -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        paths.sort();
        paths
    };
    for path in children(&user.join("venvs")) {
        found.push((Kind::Venvs, path));
    }
    for path in children(user) {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let kind = match name.as_deref() {
            Some(n) if n.starts_with("torch-") => Kind::Compile,
            Some(n) if n.starts_with("harness") || n.starts_with(".harness") => Kind::Harness,
            Some("probes") => Kind::Probes,
            _ => continue,
        };
        found.push((kind, path));
    }
    if project.is_dir() {
        found.push((Kind::Project, project.to_path_buf()));
    }
    found
        .into_iter()
        .map(|(kind, path)| Entry {
            kind,
            bytes: size(&path),
            path,
        })
        .collect()
}

/// Bytes under a path, links not followed.
fn size(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| size(&e.path()))
        .sum()
}

fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::human;

    #[test]
    fn sizes_read_like_du() {
        assert_eq!(human(512), "512 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(9_800 * 1024 * 1024), "9.6 GiB");
    }
}
