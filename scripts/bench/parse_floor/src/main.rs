//! Parse-only floor: what any scanner built on ruff_python_parser 0.0.10 pays before its first rule.
//! Walks the given paths like graphbreak does (the `ignore` crate, .gitignore honoured), reads and parses
//! every `.py` in parallel with rayon, drops the tree, and prints totals to stderr.

use rayon::prelude::*;
use ruff_python_ast::PySourceType;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

fn main() {
    let roots: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let mut walk = ignore::WalkBuilder::new(roots.first().expect("usage: parse-floor PATH..."));
    for root in &roots[1..] {
        walk.add(root);
    }
    let files: Vec<PathBuf> = walk
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .map(ignore::DirEntry::into_path)
        .filter(|path| path.extension().is_some_and(|ext| ext == "py"))
        .collect();
    let errors = AtomicUsize::new(0);
    let bytes: usize = files
        .par_iter()
        .map(|path| {
            let Ok(source) = std::fs::read_to_string(path) else {
                return 0;
            };
            let parsed = ruff_python_parser::parse_unchecked_source(&source, PySourceType::Python);
            errors.fetch_add(parsed.errors().len(), Ordering::Relaxed);
            source.len()
        })
        .sum();
    eprintln!(
        "{} files, {bytes} bytes, {} syntax errors",
        files.len(),
        errors.into_inner()
    );
}
