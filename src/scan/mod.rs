//! `graphbreak scan`: discover → parse + summarize (parallel) → link → decide findings → report.

pub mod analyze;
pub mod discover;
pub mod traced;

use crate::config::{self, Settings, TorchVersion};
use crate::diagnostics::Diagnostic;
use crate::rules;
use crate::rules::vr001_api_newer_than_floor::ApiTable;
use crate::semantic::link::Project;
use crate::semantic::summary::{FileId, FileSummary};
use analyze::FileContext;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

/// What the command line asks of a scan (already validated).
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    pub paths: Vec<PathBuf>,
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub exclude: Vec<String>,
    pub torch_version: Option<TorchVersion>,
    pub include_stubs: bool,
    pub no_config: bool,
    pub config_file: Option<PathBuf>,
    /// The region measured by Dynamo (a check report's trace map): replaces the inferred one.
    pub traced: Option<Arc<traced::TracedLines>>,
}

pub struct ScanResult {
    pub diagnostics: Vec<Diagnostic>,
    pub files_scanned: usize,
}

/// Each worker's stack: the parser grows its own, but the AST walk and drop recurse per level.
const WORKER_STACK_BYTES: usize = 64 << 20;

pub fn run(options: &ScanOptions) -> Result<ScanResult, String> {
    // Pre-commit passes only the changed files, but whether a helper is traced depends on the
    // forward() that calls it in some other file: analyze the whole project, report the named files.
    let named_files = named_files_only(&options.paths);
    // A traced region needs no project around the files: Dynamo already said what runs.
    let context_root = named_files
        .as_ref()
        .filter(|_| options.traced.is_none())
        .and_then(|named| named.iter().next().and_then(|f| project_root(f)));
    let files = discover::discover(options, context_root.as_deref())?;
    let api_table = ApiTable::load();
    let project_roots: HashSet<String> = files
        .iter()
        .map(|f| f.module.split('.').next().unwrap_or_default().to_owned())
        .collect();

    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(WORKER_STACK_BYTES)
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))?;

    pool.install(|| {
        let summaries: Vec<FileSummary> = files
            .par_iter()
            .map(|file| {
                let floor_origin = file.settings.torch_floor_origin.as_str();
                let ctx = FileContext {
                    module: file.module.clone(),
                    is_package_init: file.is_package_init,
                    project_roots: &project_roots,
                    torch_floor: options.torch_version.or(file.settings.torch_floor),
                    torch_floor_origin: if options.torch_version.is_some() {
                        "--torch-version"
                    } else {
                        floor_origin
                    },
                    api_table: &api_table,
                };
                analyze::analyze_path(&file.path, &ctx)
            })
            .collect();

        let project = Project::link(&summaries);
        let mut diagnostics: Vec<Diagnostic> = (0..summaries.len())
            .into_par_iter()
            .flat_map_iter(|id| {
                file_diagnostics(&project, id as FileId, &files[id].settings, options)
            })
            .collect();
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        // `x.detach().cpu().numpy()` is one read: keep one finding per (file, code, start).
        diagnostics
            .dedup_by(|b, a| a.path == b.path && a.code == b.code && a.location == b.location);
        if let Some(named) = &named_files {
            diagnostics.retain(|d| named.contains(&d.path));
        }
        Ok(ScanResult {
            diagnostics,
            files_scanned: named_files.as_ref().map_or(files.len(), HashSet::len),
        })
    })
}

/// When every path is a file (a pre-commit invocation), their absolute paths.
fn named_files_only(paths: &[PathBuf]) -> Option<HashSet<PathBuf>> {
    if paths.is_empty() || !paths.iter().all(|p| p.is_file()) {
        return None;
    }
    Some(paths.iter().map(|p| discover::absolute(p)).collect())
}

/// The directory that holds the project a file belongs to: nearest config file or `.git`.
fn project_root(file: &std::path::Path) -> Option<PathBuf> {
    file.parent()?.ancestors().find_map(|dir| {
        ["pyproject.toml", "graphbreak.toml", ".git"]
            .iter()
            .any(|marker| dir.join(marker).exists())
            .then(|| dir.to_path_buf())
    })
}

fn file_diagnostics(
    project: &Project<'_>,
    file: FileId,
    settings: &Settings,
    options: &ScanOptions,
) -> Vec<Diagnostic> {
    let summary = &project.files[file as usize];
    let cr002 = project.export_guard_findings(file);
    let select: &[String] = options.select.as_deref().unwrap_or(&settings.select);
    let per_file: Vec<&String> = settings
        .per_file_ignores
        .iter()
        .filter(|(glob, _)| glob.is_match(&summary.path))
        .flat_map(|(_, codes)| codes)
        .collect();
    let candidates: Vec<&crate::semantic::summary::Candidate> = match &options.traced {
        Some(region) => traced::candidates(summary, region),
        None => project
            .findings(file)
            .into_iter()
            .chain(cr002.iter())
            .collect(),
    };
    candidates
        .into_iter()
        .filter(|c| {
            select.iter().any(|s| rules::selector_matches(s, c.code))
                && !settings
                    .ignore
                    .iter()
                    .chain(options.ignore.iter())
                    .chain(per_file.iter().copied())
                    .any(|s| rules::selector_matches(s, c.code))
                && !summary
                    .noqa
                    .get(&c.location.row)
                    .is_some_and(|n| n.suppresses(c.code))
        })
        .map(|c| Diagnostic {
            code: c.code,
            message: c.message.clone(),
            path: summary.path.clone(),
            location: c.location,
            end_location: c.end_location,
            fix: c.fix.clone(),
        })
        .collect()
}

/// Settings for files when no configuration file applies.
pub fn default_settings() -> Arc<Settings> {
    Arc::new(Settings {
        select: vec!["ALL".to_owned()],
        ..Settings::default()
    })
}

pub fn load_config(path: &std::path::Path) -> Result<Arc<Settings>, String> {
    config::load_settings(path)
        .map(Arc::new)
        .map_err(|e| e.to_string())
}
