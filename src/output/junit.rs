//! `--output-format junit`: JUnit XML for CI test-report views (GitLab, Jenkins, Buildkite, Azure).
//! One `<testsuite>` per file with findings and one failed `<testcase>` per finding; a clean scan
//! is one passing test case, so the report is never empty (ruff does the same). A finding of the
//! option tier under `--option-gated warn` does not fail the run, so it does not fail its test case
//! either: it passes with the finding in `<system-out>` (CI views still show it).

use crate::config::OptionGated;
use crate::diagnostics::Diagnostic;
use std::io::Write;
use std::path::Path;

pub fn write(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    option_gated: OptionGated,
    display_path: fn(&Path) -> String,
) -> std::io::Result<()> {
    let fails = |d: &Diagnostic| !d.is_option_gated() || option_gated == OptionGated::Error;
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    let total = diagnostics.len().max(1);
    writeln!(
        out,
        r#"<testsuites name="graphbreak" tests="{total}" failures="{}" errors="0">"#,
        diagnostics.iter().filter(|d| fails(d)).count()
    )?;
    if diagnostics.is_empty() {
        writeln!(
            out,
            r#"  <testsuite name="graphbreak" tests="1" failures="0" errors="0">"#
        )?;
        writeln!(
            out,
            r#"    <testcase name="No findings" classname="graphbreak"/>"#
        )?;
        writeln!(out, "  </testsuite>")?;
    }
    // Diagnostics arrive sorted by path, so each file's findings are contiguous.
    for group in diagnostics.chunk_by(|a, b| a.path == b.path) {
        let file = escape(&display_path(&group[0].path));
        writeln!(
            out,
            r#"  <testsuite name="{file}" tests="{n}" failures="{failed}" errors="0">"#,
            n = group.len(),
            failed = group.iter().filter(|d| fails(d)).count(),
        )?;
        for d in group {
            // `file:row:col`, or `file:cell N:row:col` in a notebook (its rows count within the cell).
            let place = d.place(&file);
            let row = d.location.row;
            writeln!(
                out,
                r#"    <testcase name="{code} {place}" classname="{file}" file="{file}" line="{row}">"#,
                code = d.code,
            )?;
            let message = escape(&d.message);
            if fails(d) {
                writeln!(
                    out,
                    r#"      <failure message="{message}" type="{code}">{place}: {code} {message}</failure>"#,
                    code = d.code,
                )?;
            } else {
                writeln!(
                    out,
                    r#"      <system-out>{place}: {code} {message}</system-out>"#,
                    code = d.code,
                )?;
            }
            writeln!(out, "    </testcase>")?;
        }
        writeln!(out, "  </testsuite>")?;
    }
    writeln!(out, "</testsuites>")
}

/// XML attribute and text escaping; control characters XML 1.0 cannot carry become U+FFFD.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            '\n' => escaped.push_str("&#10;"),
            '\t' | '\r' => escaped.push_str(&format!("&#{};", c as u32)),
            c if (c as u32) < 0x20 => escaped.push('\u{FFFD}'),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_markup_quotes_and_control_characters() {
        assert_eq!(
            super::escape("a<b>&\"c'\nd\u{1}"),
            "a&lt;b&gt;&amp;&quot;c&apos;&#10;d\u{FFFD}"
        );
    }
}
