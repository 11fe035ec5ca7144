//! Diagnostics as the rules produce them and as every output format consumes them.

use crate::source::Location;
use std::path::PathBuf;

/// One text replacement, located both by byte offsets (to apply it) and rows/columns (to show it).
#[derive(Clone, Debug)]
pub struct Edit {
    pub start: u32,
    pub end: u32,
    pub content: String,
    pub location: Location,
    pub end_location: Location,
}

#[derive(Clone, Debug)]
pub struct Fix {
    pub message: String,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub code: &'static str,
    pub message: String,
    pub path: PathBuf,
    pub location: Location,
    pub end_location: Location,
    pub fix: Option<Fix>,
}

impl Diagnostic {
    pub fn sort_key(&self) -> (&PathBuf, Location, &'static str) {
        (&self.path, self.location, self.code)
    }
}

/// What a `# noqa` comment on a line suppresses.
#[derive(Clone, Debug)]
pub enum Noqa {
    All,
    Codes(Vec<String>),
}

impl Noqa {
    pub fn suppresses(&self, code: &str) -> bool {
        match self {
            Noqa::All => true,
            Noqa::Codes(codes) => codes.iter().any(|c| c.eq_ignore_ascii_case(code)),
        }
    }

    /// Parses the text of one comment (starting at `#`). Accepts `# noqa`, `#noqa: A1, B2`, and a
    /// noqa that follows other text in the comment (`# type: ignore # noqa: SY002`).
    pub fn parse(comment: &str) -> Option<Noqa> {
        let lower = comment.to_ascii_lowercase();
        let at = lower.find("noqa")?;
        // Must be the start of a directive: preceded by `#` and optional spaces.
        let before = lower[..at].trim_end();
        if !before.ends_with('#') {
            return None;
        }
        let rest = &comment[at + 4..];
        let Some(codes) = rest.trim_start().strip_prefix(':') else {
            return Some(Noqa::All);
        };
        let codes: Vec<String> = codes
            .split([',', ' ', '\t'])
            .map(str::trim)
            .filter(|c| !c.is_empty() && c.chars().all(|ch| ch.is_ascii_alphanumeric()))
            .map(str::to_owned)
            .collect();
        if codes.is_empty() {
            Some(Noqa::All)
        } else {
            Some(Noqa::Codes(codes))
        }
    }
}
