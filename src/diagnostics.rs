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
    /// First and last row of the statement the finding is in (its header for `if`/`for`/...).
    pub statement_rows: (u32, u32),
    pub fix: Option<Fix>,
    /// In a notebook: the code cell (1-based) the rows above count within.
    pub cell: Option<u32>,
    /// For a finding in traced code: the call chain from its compile root to its function.
    pub reached_from: Vec<ChainLink>,
    /// The codes of the other findings on the same statement, merged into this one
    /// (`scan/merge.rs`); the message names them too.
    pub also: Vec<&'static str>,
    /// The constructor options this finding needs off their defaults (nothing in the scanned
    /// tree sets them): the option tier (`semantic/options.rs`). Empty: the normal tier.
    pub gated_by: Vec<crate::semantic::options::GateOption>,
}

/// One function on the call chain from a compile root (`reached_from`, `--why`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainLink {
    /// `module.Qual.name`.
    pub function: String,
    /// Where the previous function calls this one (`None` for the root; row 0: the previous
    /// function's Module builds this one's in `__init__`).
    pub call: Option<(PathBuf, u32)>,
    /// Only the type flow's by-name fallback found this call (low confidence).
    pub by_name: bool,
}

impl ChainLink {
    /// `path:line` of the call, as printed.
    pub fn call_text(&self, show: impl Fn(&std::path::Path) -> String) -> Option<String> {
        self.call.as_ref().map(|(path, row)| {
            if *row == 0 {
                format!("{} (built in __init__)", show(path))
            } else {
                format!("{}:{row}", show(path))
            }
        })
    }
}

impl Diagnostic {
    /// In the option tier: reached only with a constructor option off its default.
    pub fn is_option_gated(&self) -> bool {
        !self.gated_by.is_empty()
    }

    /// `only with Net(self_condition=True)`, for the messages of every format.
    pub fn gated_text(&self) -> Option<String> {
        if self.gated_by.is_empty() {
            return None;
        }
        let options: Vec<String> = self.gated_by.iter().map(|o| o.text()).collect();
        Some(format!(
            "only with {} (off its default; nothing in the scanned files sets it)",
            options.join(" or ")
        ))
    }

    pub fn sort_key(&self) -> (&PathBuf, Option<u32>, Location, &'static str) {
        (&self.path, self.cell, self.location, self.code)
    }

    /// `path:row:col`, or `path:cell N:row:col` in a notebook (ruff's form).
    pub fn place(&self, path: &str) -> String {
        match self.cell {
            Some(cell) => format!(
                "{path}:cell {cell}:{}:{}",
                self.location.row, self.location.column
            ),
            None => format!("{path}:{}:{}", self.location.row, self.location.column),
        }
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

    /// Parses the text of one comment (starting at `#`): graphbreak's own
    /// `# graphbreak: ignore[SY002, BR001]` (a form ruff's RUF100 leaves alone, since ruff does not
    /// know it) or a ruff-style `# noqa`, `#noqa: A1, B2`, also after other text in the comment
    /// (`# type: ignore # noqa: SY002`). The flag says which: every code in graphbreak's own form
    /// is meant for graphbreak.
    pub fn parse_directive(comment: &str) -> Option<(Noqa, bool)> {
        if let Some(own) = Self::parse_own(comment) {
            return Some((own, true));
        }
        Self::parse(comment).map(|noqa| (noqa, false))
    }

    /// `# graphbreak: ignore[CODE, ...]` (bare `# graphbreak: ignore` ignores every code).
    fn parse_own(comment: &str) -> Option<Noqa> {
        // Most comments are not directives: look before allocating a lowercase copy.
        const MARK: &[u8] = b"graphbreak:";
        if !comment
            .as_bytes()
            .windows(MARK.len())
            .any(|w| w.eq_ignore_ascii_case(MARK))
        {
            return None;
        }
        let lower = comment.to_ascii_lowercase();
        let at = lower.find("graphbreak:")?;
        if !lower[..at].trim_end().ends_with('#') {
            return None;
        }
        let rest = lower[at + "graphbreak:".len()..].trim_start();
        let rest = rest.strip_prefix("ignore")?;
        let Some(list) = rest.strip_prefix('[') else {
            return rest
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || c == '#')
                .then_some(Noqa::All);
        };
        let (list, _) = list.split_once(']')?;
        let codes: Vec<String> = list
            .split([',', ' ', '\t'])
            .filter(|c| !c.is_empty())
            .map(str::to_ascii_uppercase)
            .collect();
        Some(if codes.is_empty() {
            Noqa::All
        } else {
            Noqa::Codes(codes)
        })
    }

    /// Parses a ruff-style noqa comment (see `parse_directive`).
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
        // Codes are letters then digits (`SY002`), separated by commas or spaces; the list ends at
        // the first other token, so `# noqa: F401  # explanation CR001` suppresses only F401.
        let codes: Vec<String> = codes
            .split([',', ' ', '\t'])
            .filter(|c| !c.is_empty())
            .take_while(|c| is_code(c))
            .map(str::to_owned)
            .collect();
        if codes.is_empty() {
            Some(Noqa::All)
        } else {
            Some(Noqa::Codes(codes))
        }
    }
}

fn is_code(token: &str) -> bool {
    let letters = token.chars().take_while(char::is_ascii_alphabetic).count();
    letters > 0 && letters < token.len() && token[letters..].chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::Noqa;

    fn codes(comment: &str) -> Option<Vec<String>> {
        match Noqa::parse(comment)? {
            Noqa::All => Some(vec!["*".to_owned()]),
            Noqa::Codes(codes) => Some(codes),
        }
    }

    #[test]
    fn parses_noqa_directives_like_ruff() {
        assert_eq!(codes("# noqa"), Some(vec!["*".to_owned()]));
        assert_eq!(
            codes("#noqa:SY002,BR001"),
            Some(vec!["SY002".to_owned(), "BR001".to_owned()])
        );
        assert_eq!(
            codes("# noqa: F401  # expect: BR002"),
            Some(vec!["F401".to_owned()])
        );
        assert_eq!(
            codes("# type: ignore # noqa: CR001"),
            Some(vec!["CR001".to_owned()])
        );
        assert_eq!(codes("# this is not a noqa comment"), None);
    }

    fn own(comment: &str) -> Option<(Vec<String>, bool)> {
        match Noqa::parse_directive(comment)? {
            (Noqa::All, own) => Some((vec!["*".to_owned()], own)),
            (Noqa::Codes(codes), own) => Some((codes, own)),
        }
    }

    #[test]
    fn parses_graphbreaks_own_ignore_comment() {
        assert_eq!(
            own("# graphbreak: ignore[SY002, br001]"),
            Some((vec!["SY002".to_owned(), "BR001".to_owned()], true))
        );
        assert_eq!(
            own("# graphbreak: ignore"),
            Some((vec!["*".to_owned()], true))
        );
        assert_eq!(
            own("# noqa: F401 # graphbreak: ignore[SY001]"),
            Some((vec!["SY001".to_owned()], true))
        );
        assert_eq!(
            own("# noqa: SY001"),
            Some((vec!["SY001".to_owned()], false))
        );
        assert_eq!(own("# graphbreak: ignored because"), None);
        assert_eq!(own("# see graphbreak: ignore[SY001]"), None);
    }
}
