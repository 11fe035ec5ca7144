//! Project overrides that torch's own `forward` calls (`semantic/torch_hooks.rs`): a subclass of
//! `nn.Conv2d` overriding `_conv_forward`, of a batch norm overriding `_check_input_dim`, without
//! a `forward` of its own. Calling the module runs torch's `forward`, which calls the override on
//! `self`; Dynamo traces it (tests/python/test_collaborator_reach_proofs.py).
//!
//! Cost: per Module class asked (roots, submodules built, instance calls), a walk of its project
//! bases (depth ≤ 16) to the first torch base in the table, then a closure over that base's few
//! rows with one `lookup_method` per name.

use super::*;
use crate::semantic::torch_hooks::TORCH_MODULE_HOOKS;

/// The `(method, name)` rows of a base: torch's table, or an environment class read from source.
enum RowsOf {
    Torch(&'static [(String, String)]),
    Environment(std::sync::Arc<crate::semantic::environment::EnvClass>),
}

impl std::ops::Deref for RowsOf {
    type Target = [(String, String)];
    fn deref(&self) -> &Self::Target {
        match self {
            RowsOf::Torch(rows) => rows,
            RowsOf::Environment(class) => &class.self_calls,
        }
    }
}

impl<'a> Project<'a> {
    /// The project methods torch's `forward` runs on an instance of `class` when no project
    /// class on its chain defines `forward`: the overrides of the names torch's `forward` (and
    /// the torch methods it reaches) call on `self`.
    pub(crate) fn torch_hook_overrides(&self, class: ClassRef) -> Vec<FuncRef> {
        if !self.module_classes.contains(&class)
            || self.lookup_method(class, "forward", 0).is_some()
        {
            return Vec::new();
        }
        let Some(rows) = self.torch_base_hooks(class, 0) else {
            return Vec::new();
        };
        let rows: &[(String, String)] = &rows;
        let mut found = Vec::new();
        let mut queue = vec!["forward"];
        let mut seen: HashSet<&str> = HashSet::default();
        while let Some(method) = queue.pop() {
            if !seen.insert(method) {
                continue;
            }
            for (caller, name) in rows {
                if caller != method {
                    continue;
                }
                match self.lookup_method(class, name, 0) {
                    Some(hook) => {
                        if !found.contains(&hook) {
                            found.push(hook);
                        }
                    }
                    // torch's own method: what it calls on `self` runs too.
                    None => queue.push(name.as_str()),
                }
            }
        }
        found
    }

    /// The table rows of the first torch base on `class`'s chain (its own bases, then its
    /// project bases'), named the way the project imports it; or, for a base of the environment
    /// (`semantic/environment.rs`) that is a Module, the names its own methods call on `self`.
    fn torch_base_hooks(&self, class: ClassRef, depth: u32) -> Option<RowsOf> {
        if depth > 16 {
            return None;
        }
        let info = &self.files[class.0 as usize].classes[class.1 as usize];
        for base in &info.bases {
            let dotted = match base {
                Sym::Dotted(dotted) => Some(dotted.clone()),
                _ => self.external_base(base, class.0),
            };
            let Some(dotted) = dotted else {
                continue;
            };
            if let Some(rows) = TORCH_MODULE_HOOKS.of(&dotted) {
                return Some(RowsOf::Torch(rows));
            }
            if let Some(env) = self.environment.and_then(|env| env.class(&dotted))
                && env.is_module
            {
                return Some(RowsOf::Environment(env));
            }
        }
        self.project_bases(class)
            .into_iter()
            .find_map(|base| self.torch_base_hooks(base, depth + 1))
    }
}
