//! `graphbreak scan`: discover → parse + summarize (parallel) → link → decide findings → report.

pub mod checker;
pub mod discover;
mod merge;
pub mod notebook;
pub mod roots;
#[cfg(test)]
pub(crate) mod test_support;

use crate::config::{self, Settings, TorchVersion};
use crate::diagnostics::Diagnostic;
use crate::rules;
use crate::semantic::link::CertainBreakAt;
use crate::semantic::link::Project;
pub use crate::semantic::link::RegionSource;
use crate::semantic::link::{RootPattern, RootSpec};
use crate::semantic::model::FileContext;
use crate::semantic::summary::{Candidate, FileId, FileSummary, FrameSkipCall, Hazard, Scope};
use merge::CalleeSkip;
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
    /// Which code counts as compiled: the computed closure (default) or an explicit line map.
    pub region: RegionSource,
    /// `--roots` patterns, on top of `roots = [...]` in the configuration.
    pub roots: Vec<String>,
    /// Also report the compile roots and how much each reaches.
    pub show_roots: bool,
    /// Also report every function of the region, with its chain from a root.
    pub show_reached: bool,
    /// Say why the function holding this row of this file is traced (or that it is not).
    pub why: Option<(PathBuf, u32)>,
    /// Follow values through the whole program (constructor arguments, returns, containers):
    /// experimental, off by default.
    pub type_flow: bool,
    /// The Python environment the project runs in (a venv or a site-packages directory): bases
    /// of other installed distributions are read from its sources. None: nothing is read.
    pub environment: Option<PathBuf>,
}

pub struct ScanResult {
    pub diagnostics: Vec<Diagnostic>,
    pub files_scanned: usize,
    /// Filled when `show_roots` is set.
    pub roots: Vec<RootReport>,
    /// Filled when `show_roots` is set: (module, pattern) pairs a wildcard pattern matched but
    /// did not root (private modules nothing outside them imports).
    pub roots_left_out: Vec<(String, String)>,
    /// Filled when `show_reached` is set.
    pub reached: Vec<ReachedFunction>,
    /// Filled when `why` is set.
    pub why: Option<WhyAnswer>,
    /// With configured roots (and the computed region): the nn.Module forwards in the reported
    /// files that no root reaches.
    pub unreached: Vec<roots::Unreached>,
    /// `rule-url-base` of the configuration in force (the first one that sets it).
    pub rule_url_base: Option<String>,
    /// `option-gated` of the configuration in force (the first one that sets it).
    pub option_gated: Option<crate::config::OptionGated>,
}

/// One function of the region, for `--show-reached`.
#[derive(Debug)]
pub struct ReachedFunction {
    pub path: PathBuf,
    pub line: u32,
    pub end_line: u32,
    /// `module.Qual.name`.
    pub function: String,
    /// The root its chain starts at (`module.Qual.name`).
    pub root: String,
    pub reached_from: Vec<crate::diagnostics::ChainLink>,
}

/// The answer to `--why FILE:LINE`.
#[derive(Debug)]
pub enum WhyAnswer {
    /// The row is in this function, which the region reaches along `chain` (root first).
    Reached {
        function: String,
        root_reason: String,
        chain: Vec<crate::diagnostics::ChainLink>,
    },
    /// The row is in this function (`None`: at module level), which no root reaches.
    NotReached {
        function: Option<String>,
        roots: Vec<String>,
    },
}

/// One compile root, for `--show-roots`.
#[derive(Debug)]
pub struct RootReport {
    /// `module.QualName` of the root function.
    pub name: String,
    pub path: PathBuf,
    pub line: u32,
    pub reason: String,
    /// Functions reachable from it (itself included).
    pub reaches: usize,
}

/// Each worker's stack: the parser grows its own, but the AST walk and drop recurse per level.
const WORKER_STACK_BYTES: usize = 64 << 20;

pub fn run(options: &ScanOptions) -> Result<ScanResult, String> {
    run_impl(options, false)
}

/// `run` for a process that exits right after writing the result (the `scan` command): the
/// per-file summaries, the linked project and the discovered files are leaked instead of
/// dropped. Freeing them costs ~5% of a large scan's CPU for memory the OS reclaims at exit
/// anyway (ruff's CLI does the same). Not for long-lived callers such as `check`.
pub fn run_then_exit(options: &ScanOptions) -> Result<ScanResult, String> {
    run_impl(options, true)
}

fn run_impl(options: &ScanOptions, leak: bool) -> Result<ScanResult, String> {
    // Pre-commit passes only the changed files, but whether a helper is traced depends on the
    // forward() that calls it in some other file: analyze the whole project, report the named files.
    let named_files = named_files_only(&options.paths);
    let context_root = named_files
        .as_ref()
        .and_then(|named| named.iter().next().and_then(|f| project_root(f)));
    let files = discover::discover(options, context_root.as_deref())?;
    let project_roots: rustc_hash::FxHashSet<String> = files
        .iter()
        .map(|f| f.module.split('.').next().unwrap_or_default().to_owned())
        .collect();

    let (root_spec, named_roots) = root_spec(options, &files)?;
    let environment = options
        .environment
        .as_deref()
        .map(crate::semantic::environment::Environment::open)
        .transpose()?;
    // No floor declared anywhere: the torch installed where the project runs is the oldest it
    // runs on, so a claim that holds from that version on holds for this project.
    let installed_torch = environment
        .as_ref()
        .and_then(|environment| environment.installed_torch())
        .map(|(version, site)| {
            let origin = format!("torch {version} installed in {}", site.display());
            (version, origin)
        });
    let rule_url_base = files
        .iter()
        .find_map(|file| file.settings.rule_url_base.clone());
    let option_gated = files.iter().find_map(|file| file.settings.option_gated);

    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(WORKER_STACK_BYTES)
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))?;

    pool.install(|| {
        let summaries: Vec<FileSummary> = files
            .par_iter()
            .map(|file| {
                let (torch_floor, torch_floor_origin) = match (
                    options.torch_version,
                    file.settings.torch_floor,
                    &installed_torch,
                ) {
                    (Some(version), _, _) => (Some(version), "--torch-version"),
                    (None, Some(version), _) => {
                        (Some(version), file.settings.torch_floor_origin.as_str())
                    }
                    (None, None, Some((version, origin))) => (Some(*version), origin.as_str()),
                    (None, None, None) => (None, file.settings.torch_floor_origin.as_str()),
                };
                let ctx = FileContext {
                    module: file.module.clone(),
                    is_package_init: file.is_package_init,
                    project_roots: &project_roots,
                    torch_floor,
                    torch_floor_origin,
                    // The file's own configuration (or --roots) decides, never another's.
                    roots_configured: !options.roots.is_empty()
                        || roots::configured(&file.settings),
                    type_flow: options.type_flow,
                };
                checker::analyze_path(&file.path, &ctx)
            })
            .collect();

        let project = Project::link(
            &summaries,
            &options.region,
            &root_spec,
            options.type_flow,
            environment.as_ref(),
        );
        // A pattern that names nothing narrows the scan to nothing it meant: fail, never pass.
        // (With an explicit line map the roots decide nothing, so neither check applies.)
        let computed = matches!(options.region, RegionSource::Computed);
        let unmatched = if computed {
            roots::unmatched(&project, &named_roots)
        } else {
            Vec::new()
        };
        if !unmatched.is_empty() {
            return Err(unmatched.join("\n"));
        }
        let unreached = if root_spec.is_empty() || !computed {
            Vec::new()
        } else {
            roots::unreached_forwards(&project, &|path| {
                named_files
                    .as_ref()
                    .is_none_or(|named| named.contains(path))
            })
        };
        let (roots, roots_left_out) = if options.show_roots {
            (root_reports(&project), project.roots_left_out.clone())
        } else {
            (Vec::new(), Vec::new())
        };
        let reached = if options.show_reached {
            reached_functions(&project)
        } else {
            Vec::new()
        };
        let why = match &options.why {
            Some((path, row)) => Some(why(&project, path, *row)?),
            None => None,
        };
        let per_file: Vec<(Vec<Diagnostic>, Vec<SkipNote>)> = (0..summaries.len())
            .into_par_iter()
            .map(|id| file_diagnostics(&project, id as FileId, &files[id].settings, options))
            .collect();
        let mut diagnostics: Vec<Diagnostic> = Vec::new();
        let mut notes: Vec<SkipNote> = Vec::new();
        for (found, noted) in per_file {
            diagnostics.extend(found);
            notes.extend(noted);
        }
        apply_skip_notes(&mut diagnostics, notes);
        // One statement got one finding already (`merge::merge_per_statement`, per file).
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        if let Some(named) = &named_files {
            diagnostics.retain(|d| named.contains(&d.path));
        }
        let files_scanned = named_files.as_ref().map_or(files.len(), HashSet::len);
        if leak {
            std::mem::forget(project);
            std::mem::forget(summaries);
        }
        Ok(ScanResult {
            diagnostics,
            files_scanned,
            roots,
            roots_left_out,
            reached,
            why,
            unreached,
            rule_url_base,
            option_gated,
        })
    })
    .inspect(|_| {
        if leak {
            std::mem::forget(files);
        }
    })
}

/// The roots from the command line and from every configuration in force (usually one), and the
/// part of them the user named (what must match something). Roots narrow only the files of the
/// configuration that sets them: without --roots, the files of a configuration that sets none keep
/// the default (their nn.Module forwards are roots).
fn root_spec(
    options: &ScanOptions,
    files: &[discover::DiscoveredFile],
) -> Result<(RootSpec, RootSpec), String> {
    let mut spec = RootSpec::default();
    for pattern in &options.roots {
        spec.patterns.push(RootPattern::parse(pattern)?);
    }
    let mut seen_settings: HashSet<*const Settings> = HashSet::new();
    for file in files {
        if !seen_settings.insert(Arc::as_ptr(&file.settings)) {
            continue;
        }
        for pattern in &file.settings.roots {
            if !spec.patterns.iter().any(|p| p.text == pattern.text) {
                spec.patterns.push(pattern.clone());
            }
        }
        for (path, factory) in &file.settings.case_factories {
            // The configuration names files relative to itself; match them as discovered.
            let Some(found) = files.iter().find(|f| discover::absolute(&f.path) == *path) else {
                continue;
            };
            let entry = (found.path.clone(), factory.clone());
            if !spec.case_factories.contains(&entry) {
                spec.case_factories.push(entry);
            }
        }
    }
    let named = spec.clone();
    if options.roots.is_empty() && !spec.is_empty() {
        let unconfigured: Vec<&str> = files
            .iter()
            .filter(|file| !roots::configured(&file.settings))
            .map(|file| file.module.as_str())
            .collect();
        spec.patterns.extend(roots::default_roots_of(&unconfigured));
    }
    Ok((spec, named))
}

fn root_reports(project: &Project<'_>) -> Vec<RootReport> {
    let mut reports: Vec<RootReport> = project
        .roots
        .par_iter()
        .map(|root| {
            let (name, path, line) = project.describe(root.func);
            RootReport {
                name,
                path: path.to_path_buf(),
                line,
                reason: root.reason.clone(),
                reaches: project.reach_count(root.func),
            }
        })
        .collect();
    reports.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    reports
}

fn reached_functions(project: &Project<'_>) -> Vec<ReachedFunction> {
    project
        .region_functions()
        .into_par_iter()
        .map(|func| {
            let (function, path, line) = project.describe(func);
            let chain = project.chain(func);
            ReachedFunction {
                path: path.to_path_buf(),
                line,
                end_line: project.files[func.0 as usize].functions[func.1 as usize].end_line,
                function,
                root: chain
                    .first()
                    .map(|link| link.function.clone())
                    .unwrap_or_default(),
                reached_from: chain,
            }
        })
        .collect()
}

/// `--why FILE:LINE`: the innermost function holding the row, and its chain from a root.
fn why(project: &Project<'_>, path: &std::path::Path, row: u32) -> Result<WhyAnswer, String> {
    let wanted = discover::absolute(path);
    let Some(file) = project
        .files
        .iter()
        .position(|f| discover::absolute(&f.path) == wanted)
    else {
        return Err(format!(
            "--why: {} is not among the scanned Python files",
            path.display()
        ));
    };
    let lines = crate::source::read_source(path)
        .map(|text| text.lines().count())
        .unwrap_or(0);
    if row == 0 || row as usize > lines.max(1) {
        return Err(format!(
            "--why: {} has {lines} lines, no line {row}",
            path.display()
        ));
    }
    let summary = &project.files[file];
    let holder = summary
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.line <= row && row <= f.end_line)
        .max_by_key(|(_, f)| f.line)
        .map(|(idx, _)| (file as FileId, idx as u32));
    let roots = || {
        project
            .roots
            .iter()
            .map(|root| format!("{} ({})", project.describe(root.func).0, root.reason))
            .collect()
    };
    let Some(func) = holder else {
        return Ok(WhyAnswer::NotReached {
            function: None,
            roots: roots(),
        });
    };
    let chain = project.chain(func);
    let function = project.describe(func).0;
    Ok(match chain.first() {
        Some(_) => {
            // The root is where the chain starts.
            let root = chain_root(project, func);
            WhyAnswer::Reached {
                function,
                root_reason: root
                    .and_then(|r| project.root_reason(r))
                    .unwrap_or_default()
                    .to_owned(),
                chain,
            }
        }
        None => WhyAnswer::NotReached {
            function: Some(function),
            roots: roots(),
        },
    })
}

/// The root the recorded chain of `func` starts at.
fn chain_root(
    project: &Project<'_>,
    func: crate::semantic::link::FuncRef,
) -> Option<crate::semantic::link::FuncRef> {
    let mut current = func;
    let mut steps = 0;
    while project.root_reason(current).is_none() {
        current = project.reached_by.get(&current)?.caller;
        steps += 1;
        if steps > 10_000 {
            return None;
        }
    }
    Some(current)
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

/// What a callee's break does to a caller that calls it inside a loop or `try` body: named on
/// the callee's finding, which may be in another file (`merge::CalleeSkip`).
struct SkipNote {
    /// The file and place of the callee's break.
    path: PathBuf,
    location: crate::source::Location,
    text: String,
}

fn callee_skip_note(
    project: &Project<'_>,
    file: FileId,
    site: &FrameSkipCall,
    at: &CertainBreakAt,
    rows: &[u32],
) -> SkipNote {
    let summary = &project.files[file as usize];
    let info = &summary.functions[site.func as usize];
    let caller = info.qualified_name();
    let file_name = summary
        .path
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let through = match at.chain.split_last() {
        Some((_, before)) if !before.is_empty() => format!(" through `{}`", before.join("` → `")),
        _ => String::new(),
    };
    SkipNote {
        path: project.files[at.file as usize].path.clone(),
        location: at.location,
        text: format!(
            "called inside a {} of `{caller}` ({file_name}:{}){through}, this break makes Dynamo skip the frame of `{caller}`: it runs eagerly, so its later hazards on {} are never traced: not separate causes",
            site.block,
            site.location.row,
            merge::lines_text(rows)
        ),
    }
}

/// Appends each note to the finding of the callee's break it is about (the finding whose
/// statement holds the break, in its file); a note whose break was not reported is dropped.
fn apply_skip_notes(diagnostics: &mut [Diagnostic], mut notes: Vec<SkipNote>) {
    if notes.is_empty() {
        return;
    }
    notes.sort_by(|a, b| (&a.path, a.location, &a.text).cmp(&(&b.path, b.location, &b.text)));
    for note in notes {
        let found = diagnostics.iter_mut().find(|d| {
            d.path == note.path
                && d.cell.is_none()
                && (d.location == note.location
                    || (d.statement_rows.0..=d.statement_rows.1).contains(&note.location.row))
        });
        if let Some(diagnostic) = found {
            diagnostic.message = format!("{} ({})", diagnostic.message, note.text);
        }
    }
}

fn file_diagnostics(
    project: &Project<'_>,
    file: FileId,
    settings: &Settings,
    options: &ScanOptions,
) -> (Vec<Diagnostic>, Vec<SkipNote>) {
    let mut notes: Vec<SkipNote> = Vec::new();
    let summary = &project.files[file as usize];
    let linked: Vec<Candidate> = checker::project_findings(project, file);
    let select: &[String] = options.select.as_deref().unwrap_or(&settings.select);
    let per_file: Vec<&String> = settings
        .per_file_ignores
        .iter()
        .filter(|(glob, _)| glob.is_match(&summary.path))
        .flat_map(|(_, codes)| codes)
        .collect();
    let selected: Vec<&Candidate> = project
        .findings(file)
        .into_iter()
        .chain(linked.iter())
        .filter(|c| {
            select.iter().any(|s| rules::selector_matches(s, c.code))
                && !settings
                    .ignore
                    .iter()
                    .chain(options.ignore.iter())
                    .chain(per_file.iter().copied())
                    .any(|s| rules::selector_matches(s, c.code))
        })
        .collect();
    // A wording that holds only with (or without) a Dynamo config flag the tree may set.
    let selected: Vec<&Candidate> = selected
        .into_iter()
        .filter(|c| {
            c.dynamo_config
                .is_none_or(|(flag, set)| project.dynamo_config_set(flag, file) == set)
                && c.fullgraph_only.is_none_or(|only| {
                    c.func
                        .is_some_and(|func| project.fullgraph_only.contains(&(file, func)))
                        == only
                })
        })
        .collect();
    // A value that crosses a graph break matters only when a break of its function is reported.
    let selected = merge::keep_after_breaks(selected);
    // A call in a loop or `try` body to a function that always breaks skips the frame too; asked
    // only where a later hazard of the same function could fold (rare, and cheap then).
    let callee_skips: Vec<merge::CalleeSkip<'_>> = summary
        .frame_skip_calls
        .iter()
        .filter(|site| {
            selected.iter().any(|c| {
                c.func == Some(site.func)
                    && c.hazard != Hazard::NoBreak
                    && c.location > site.location
            })
        })
        .filter_map(|site| {
            project
                .skips_frame_at(file, site)
                .map(|at| merge::CalleeSkip { site, at })
        })
        .collect();
    // After a hazard that makes Dynamo give up on its frame, later ones of that frame say so once.
    let (selected, callee_folds) = merge::fold_frame_skips(selected, &callee_skips);
    for (index, rows) in callee_folds {
        let CalleeSkip { site, at } = &callee_skips[index];
        notes.push(callee_skip_note(project, file, site, at, &rows));
    }
    // A guard's finding about the hazard it lets through is one finding with that hazard.
    let selected = merge::merge_into_cited(selected, &summary.noqa);
    let selected = selected
        .into_iter()
        .map(|(c, message, also)| (c, in_cond_branch(project, file, c, message), also))
        .map(|(c, message, also)| Diagnostic {
            code: c.code,
            message,
            path: summary.path.clone(),
            location: c.location,
            end_location: c.end_location,
            statement_rows: c.statement_rows,
            fix: c.fix.clone(),
            reached_from: match (c.scope, c.func) {
                (Scope::CompiledRegion, Some(func)) => project.chain((file, func)),
                _ => Vec::new(),
            },
            also,
            cell: None,
            gated_by: match (c.scope, c.func) {
                (Scope::CompiledRegion, Some(func)) => project.gated_by((file, func), &c.path),
                _ => Vec::new(),
            },
        })
        .collect();
    // One statement, one finding; a noqa for any of its codes suppresses it. (Rows are still the
    // joined source's here, as the noqa rows are; a notebook's move to its cells comes last.)
    let diagnostics = merge::merge_per_statement(selected, &summary.noqa)
        .into_iter()
        .map(|mut d| {
            // The option tier says which options it needs, in every output format.
            if let Some(text) = d.gated_text() {
                d.message = format!("{} — {text}", d.message);
            }
            d
        })
        .map(|d| in_cells(d, &summary.cell_starts))
        .collect();
    (diagnostics, notes)
}

/// A break in a `torch.cond` branch is no break: Dynamo traces the branch as one graph (eagerly
/// too), so the `torch.cond` call raises there instead (measured on torch 2.2-2.11 for `print`,
/// `graph_break()`, a skipped call, a data-dependent `if` and `.item()`;
/// tests/python/test_cond_branch_proofs.py). The message says so.
fn in_cond_branch(project: &Project<'_>, file: FileId, c: &Candidate, message: String) -> String {
    let breaks = matches!(c.hazard, Hazard::GraphBreak | Hazard::FrameSkip);
    let site = match (c.scope, c.func) {
        (Scope::CompiledRegion, Some(func)) if breaks => project.cond_branches.get(&(file, func)),
        _ => None,
    };
    // A message that already says what a break in a cond branch does (BR006's) says it once.
    let Some(&(site_file, row)) = site.filter(|_| !message.contains("`torch.cond` branch")) else {
        return message;
    };
    let at = if site_file == file {
        format!("line {row}")
    } else {
        format!(
            "{}:{row}",
            crate::rules::file_name(&project.files[site_file as usize].path)
        )
    };
    format!(
        "{message}; this function is a `torch.cond` branch ({at}), where Dynamo cannot break: the `torch.cond` call raises UncapturedHigherOrderOpError instead, eagerly or compiled"
    )
}

/// A notebook's finding, moved from the joined source's rows to its code cell's (ruff's
/// `cell N:row:col`). Its fix is dropped: the edits' offsets are in the joined source, not the file.
fn in_cells(mut diagnostic: Diagnostic, cell_starts: &[u32]) -> Diagnostic {
    if cell_starts.is_empty() {
        return diagnostic;
    }
    let (cell, row) = notebook::cell_of(cell_starts, diagnostic.location.row);
    let shift = diagnostic.location.row - row;
    let in_cell = |r: u32| r.saturating_sub(shift).max(1);
    diagnostic.location.row = row;
    diagnostic.end_location.row = in_cell(diagnostic.end_location.row);
    diagnostic.statement_rows = (
        in_cell(diagnostic.statement_rows.0),
        in_cell(diagnostic.statement_rows.1),
    );
    diagnostic.cell = Some(cell);
    diagnostic.fix = None;
    diagnostic
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};
    use std::path::Path;

    fn corpus(code: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/rules")
            .join(code)
    }

    fn rows(result: &ScanResult) -> Vec<(String, u32)> {
        result
            .diagnostics
            .iter()
            .map(|d| {
                let name = d.path.file_name().unwrap().to_string_lossy().into_owned();
                (name, d.location.row)
            })
            .collect()
    }

    #[test]
    fn an_explicit_line_map_replaces_the_computed_region() {
        let dir = corpus("SY002");
        // The `.cpu()` read in positive.py.
        let text = std::fs::read_to_string(dir.join("positive.py")).unwrap();
        let row = text
            .lines()
            .position(|line| line.contains("scores.cpu()"))
            .unwrap() as u32
            + 1;
        let computed = run(&ScanOptions {
            paths: vec![dir.clone()],
            ..ScanOptions::default()
        })
        .unwrap();
        assert!(rows(&computed).contains(&("positive.py".to_owned(), row)));

        // Only that line of positive.py was traced: only the finding there is reported, and its
        // statement range is what the map is matched against.
        let positive = discover::absolute(&dir.join("positive.py"));
        let lines = HashMap::from([(positive, HashSet::from([row]))]);
        let mapped = run(&ScanOptions {
            paths: vec![dir.clone()],
            region: RegionSource::Lines(lines),
            ..ScanOptions::default()
        })
        .unwrap();
        assert_eq!(rows(&mapped), vec![("positive.py".to_owned(), row)]);
        let finding = &mapped.diagnostics[0];
        assert_eq!(finding.code, "SY002");
        assert_eq!(finding.statement_rows.0, row);

        let nothing = run(&ScanOptions {
            paths: vec![dir],
            region: RegionSource::Lines(HashMap::new()),
            ..ScanOptions::default()
        })
        .unwrap();
        assert!(nothing.diagnostics.is_empty());
    }

    #[test]
    fn a_guard_finding_merges_into_the_hazard_it_cites_and_stands_alone_without_it() {
        let dir = corpus("CR002");
        let text = std::fs::read_to_string(dir.join("positive.py")).unwrap();
        let row_of =
            |needle: &str| text.lines().position(|line| line.contains(needle)).unwrap() as u32 + 1;
        let guard = row_of("if torch.jit.is_tracing():");
        let hazard = row_of("hw = torch.stack([torch._shape_as_tensor(x)[2:4]])");
        let all = run(&ScanOptions {
            paths: vec![dir.clone()],
            ..ScanOptions::default()
        })
        .unwrap();
        let merged = all
            .diagnostics
            .iter()
            .find(|d| d.location.row == hazard)
            .unwrap();
        assert_eq!(
            (merged.code, merged.also.as_slice()),
            ("CR001", &["CR002"][..])
        );
        assert!(
            merged
                .message
                .contains(&format!("also CR002 (line {guard})"))
        );
        assert!(!rows(&all).contains(&("positive.py".to_owned(), guard)));

        // The hazard's rule not selected: the guard's finding is reported on its own line.
        let alone = run(&ScanOptions {
            paths: vec![dir],
            select: Some(vec!["CR002".to_owned()]),
            ..ScanOptions::default()
        })
        .unwrap();
        assert!(rows(&alone).contains(&("positive.py".to_owned(), guard)));
        assert!(alone.diagnostics.iter().all(|d| d.also.is_empty()));
    }
}
