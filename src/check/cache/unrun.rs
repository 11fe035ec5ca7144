//! The bodies of a file's functions that never ran: what an imported module's part of a cache key leaves
//! out. A library module imported by every case (its package's `__init__` imports every model) keys each
//! case only on the code that case ran: an edit inside a function that never ran while building the case
//! or in its eager reference step — another model's `forward` — cannot change what the case does. Only
//! bodies are left out: the `def` line, decorators, parameters and defaults (evaluated when the module ran)
//! and everything outside functions stay in the key.

use ruff_python_ast::statement_visitor::{StatementVisitor, walk_stmt};
use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::Ranged;
use rustc_hash::FxHashSet;

use crate::source::LineIndex;

/// 1-based inclusive line ranges of the bodies of functions whose (first line, name) is not in `ran`
/// (first line as Python counts it: the first decorator's, else the `def`'s). A file that does not parse
/// gets none: the whole file is the key.
pub fn unrun_bodies(source: &str, ran: &[(u32, String)]) -> Vec<(u32, u32)> {
    let Ok(parsed) = ruff_python_parser::parse_module(source) else {
        return Vec::new();
    };
    let mut finder = Finder {
        lines: LineIndex::new(source),
        ran: ran
            .iter()
            .map(|(line, name)| (*line, name.as_str()))
            .collect(),
        bodies: Vec::new(),
    };
    finder.visit_body(&parsed.syntax().body);
    finder.bodies.sort_unstable();
    finder.bodies
}

struct Finder<'a> {
    lines: LineIndex,
    ran: FxHashSet<(u32, &'a str)>,
    bodies: Vec<(u32, u32)>,
}

impl Finder<'_> {
    fn line(&self, offset: ruff_text_size::TextSize) -> u32 {
        self.lines.line_of(offset.into()) as u32 + 1
    }
}

impl<'b> StatementVisitor<'b> for Finder<'_> {
    fn visit_stmt(&mut self, stmt: &'b Stmt) {
        let Stmt::FunctionDef(def) = stmt else {
            walk_stmt(self, stmt);
            return;
        };
        let first = def
            .decorator_list
            .iter()
            .map(|decorator| decorator.start())
            .chain([def.start()])
            .min()
            .map_or(0, |start| self.line(start));
        if self.ran.contains(&(first, def.name.id.as_str())) {
            // It ran: its own nested functions may not have.
            walk_stmt(self, stmt);
            return;
        }
        let Some(tail) = def.body.last() else {
            return;
        };
        let header_end = def
            .returns
            .as_deref()
            .map_or(def.parameters.end(), |returns: &ast::Expr| returns.end());
        // From the line after the header (comments before the first statement included) to the last
        // statement's end. A one-line `def f(): return x` has no body line of its own to leave out.
        let (start, end) = (self.line(header_end) + 1, self.line(tail.end()));
        if start <= end {
            self.bodies.push((start, end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_out_the_bodies_of_functions_that_never_ran() {
        let source = "\
import functools

def ran(x):
    def inner():
        return 1
    return x

@functools.cache
def decorated(
    y,
) -> int:
    return y

def one_liner(): return 2

class Model:
    def forward(self, x):
        # a comment inside
        return x * 2
";
        let ran = vec![
            (1, "<module>".into()),
            (3, "ran".into()),
            (16, "Model".into()),
        ];
        assert_eq!(
            unrun_bodies(source, &ran),
            vec![(5, 5), (12, 12), (18, 19)],
            "inner (in a function that ran), decorated (first line = decorator), forward; \
             never the one-liner"
        );
        let all_ran = vec![
            (3, "ran".into()),
            (4, "inner".into()),
            (8, "decorated".into()),
            (17, "forward".into()),
        ];
        assert_eq!(unrun_bodies(source, &all_ran), vec![]);
        assert_eq!(
            unrun_bodies("def broken(:\n", &[]),
            vec![],
            "unparsable: whole file"
        );
    }
}
