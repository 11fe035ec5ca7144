//! Dynamo config flags the file sets to `True`: `torch._dynamo.config.FLAG = True` and
//! `setattr(torch._dynamo.config, "FLAG", True)` set it for the process (once the module is
//! imported), `torch._dynamo.config.patch(FLAG=True)` / `.patch("FLAG", True)` /
//! `.patch({"FLAG": True})` (a decorator or a `with`) for the code it wraps. Linking asks whether
//! a flag is set for a file's findings (`Project::dynamo_config_set`): by an assignment anywhere in
//! the tree, or by a patch in that file. Some flags change what traces (`capture_scalar_outputs =
//! True` keeps `.item()` in the graph), so a claim that holds only without the flag holds only when
//! it is not set. Over-approximate on purpose (a patch counts for its whole file): claims are
//! dropped, never added, by it. O(1) per assignment or call (one resolve each, already done for
//! calls).

use super::*;
use crate::semantic::summary::DynamoConfigScope;

const CONFIG: &str = "torch._dynamo.config";

impl<'a> SemanticModel<'a> {
    /// `torch._dynamo.config.FLAG = True` (any `True`-valued constant).
    pub(crate) fn note_dynamo_config_assignment(&mut self, target: &Expr, value: &Expr) {
        if !matches!(target, Expr::Attribute(_)) || !is_true(value) {
            return;
        }
        if let Some(Sym::Dotted(dotted)) = self.resolve(target)
            && let Some(flag) = dotted
                .strip_prefix(CONFIG)
                .and_then(|rest| rest.strip_prefix('.'))
            && !flag.contains('.')
        {
            self.summary
                .dynamo_config_true
                .push((flag.to_owned(), DynamoConfigScope::Process));
        }
    }

    /// `setattr(torch._dynamo.config, "FLAG", True)` and `torch._dynamo.config.patch(...)`.
    pub(crate) fn note_dynamo_config_call(&mut self, call: &ast::ExprCall, callee: Option<&Sym>) {
        let mut set: Vec<String> = Vec::new();
        let mut scope = DynamoConfigScope::Process;
        match callee {
            Some(Sym::Dotted(dotted)) if dotted == "torch._dynamo.config.patch" => {
                scope = DynamoConfigScope::File;
                for keyword in &call.arguments.keywords {
                    if let Some(arg) = &keyword.arg
                        && is_true(&keyword.value)
                    {
                        set.push(arg.to_string());
                    }
                }
                match &*call.arguments.args {
                    [Expr::StringLiteral(flag), value, ..] if is_true(value) => {
                        set.push(flag.value.to_str().to_owned());
                    }
                    [Expr::Dict(dict)] => {
                        for item in &dict.items {
                            if let Some(Expr::StringLiteral(flag)) = &item.key
                                && is_true(&item.value)
                            {
                                set.push(flag.value.to_str().to_owned());
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ if self.is_builtin(&call.func, "setattr") => {
                if let [config, Expr::StringLiteral(flag), value] = &*call.arguments.args
                    && is_true(value)
                    && matches!(self.resolve(config), Some(Sym::Dotted(d)) if d == CONFIG)
                {
                    set.push(flag.value.to_str().to_owned());
                }
            }
            _ => {}
        }
        if set.is_empty() {
            return;
        }
        for flag in set {
            self.summary.dynamo_config_true.push((flag, scope));
        }
    }
}

fn is_true(value: &Expr) -> bool {
    matches!(value, Expr::BooleanLiteral(b) if b.value)
}
