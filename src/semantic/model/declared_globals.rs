//! Names a function declares `global`: an assignment to one in the function stores into the
//! module's namespace (Dynamo replays such stores after the graph, except for values it cannot
//! hold outside the graph, such as a tensor hook's handle).
//!
//! Cost: one map entry per `global` statement; a query is one hash lookup, and none when the file
//! has no `global` statement in a function.

use super::*;

impl SemanticModel<'_> {
    /// `global a, b` inside a function.
    pub(crate) fn note_declared_globals(&mut self, global: &ast::StmtGlobal) {
        let Some(func) = self.current_function() else {
            return;
        };
        let names = self.declared_globals.entry(func).or_default();
        for name in &global.names {
            names.push(name.id.to_string());
        }
    }

    /// Whether the function being walked declares `name` global.
    pub fn is_declared_global(&self, name: &str) -> bool {
        if self.declared_globals.is_empty() {
            return false;
        }
        self.current_function()
            .and_then(|func| self.declared_globals.get(&func))
            .is_some_and(|names| names.iter().any(|n| n == name))
    }
}
