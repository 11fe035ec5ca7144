//! Guards: the condition formula of a test expression and the guard path the walk is under.

use super::*;

impl<'a> SemanticModel<'a> {
    pub fn cond_of(&self, expr: &Expr) -> Cond {
        // Locals are followed one hop only (`compiling = is_compiling()`), never into themselves.
        self.cond_of_depth(expr, 0, Follow::Locals)
    }

    pub(super) fn cond_of_depth(&self, expr: &Expr, depth: u32, follow: Follow) -> Cond {
        if depth > MAX_EXPR_DEPTH {
            return Cond::Unknown;
        }
        // `if _TORCH_GE_2:`, `torch.__version__ < "2.0"` (`model/torch_versions.rs`). `not`,
        // `and`, `or` are taken apart below, so that an operand that is no version test keeps
        // its own formula (`if TORCH_GE_2 and not is_compiling():`).
        if !matches!(expr, Expr::BoolOp(_) | Expr::UnaryOp(_))
            && let Some(cond) = self.torch_version_cond(expr, depth)
        {
            return cond;
        }
        // `if child:`, `mode == "avg"`, `if self.merged:` (`model/context_atoms.rs`).
        if let Some(cond) = self.context_atom(expr) {
            return cond;
        }
        match expr {
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => Cond::Not(Box::new(
                self.cond_of_depth(&unary.operand, depth + 1, follow),
            )),
            Expr::BoolOp(boolop) => {
                let items = boolop
                    .values
                    .iter()
                    .map(|v| self.cond_of_depth(v, depth + 1, follow))
                    .collect();
                match boolop.op {
                    ast::BoolOp::And => Cond::And(items),
                    ast::BoolOp::Or => Cond::Or(items),
                }
            }
            Expr::BooleanLiteral(literal) => Cond::Const(literal.value),
            // `bool(x)` reads `x`'s truth.
            Expr::Call(call)
                if call.arguments.keywords.is_empty()
                    && let [arg] = &*call.arguments.args
                    && self.is_builtin(&call.func, "bool") =>
            {
                self.cond_of_depth(arg, depth + 1, follow)
            }
            Expr::Call(call) => self.cond_of_call(call),
            // `p() if p is not None else torch._dynamo.is_compiling()`: known when both sides agree.
            Expr::If(if_expr) => {
                // `bool(_f()) if _f is not None else False`: a test the evaluator decides picks
                // its side (`model/eval.rs`).
                match self.eval_value(&if_expr.test).truth() {
                    Cond::Const(true) => {
                        return self.cond_of_depth(&if_expr.body, depth + 1, follow);
                    }
                    Cond::Const(false) => {
                        return self.cond_of_depth(&if_expr.orelse, depth + 1, follow);
                    }
                    _ => {}
                }
                let body = self.cond_of_depth(&if_expr.body, depth + 1, follow);
                let orelse = self.cond_of_depth(&if_expr.orelse, depth + 1, follow);
                if body == orelse {
                    body
                } else {
                    Cond::Choice(Box::new(body), Box::new(orelse))
                }
            }
            // `if profile:` on a `profile=False` parameter not reassigned so far.
            Expr::Name(name) if self.is_flag_param(name.id.as_str()) => {
                Cond::Atom(Atom::FlagParam(name.id.as_str().to_owned()))
            }
            // `len(caches) == 1` on the function's own `*caches`.
            Expr::Compare(compare)
                if compare.ops.len() == 1
                    && let Some(atom) = self.vararg_len_atom(compare) =>
            {
                Cond::Atom(atom)
            }
            // `if cache_data is not None:` / `is None` on a `cache_data=None` parameter: the same
            // atom (False at the default) or its negation.
            Expr::Compare(compare)
                if compare.ops.len() == 1
                    && matches!(compare.ops[0], ast::CmpOp::Is | ast::CmpOp::IsNot)
                    && matches!(compare.comparators.first(), Some(Expr::NoneLiteral(_)))
                    && matches!(&*compare.left, Expr::Name(name) if self.is_none_flag_param(name.id.as_str())) =>
            {
                let Expr::Name(name) = &*compare.left else {
                    return Cond::Unknown;
                };
                let atom = Cond::Atom(Atom::FlagParam(name.id.as_str().to_owned()));
                if matches!(compare.ops[0], ast::CmpOp::IsNot) {
                    atom
                } else {
                    Cond::Not(Box::new(atom))
                }
            }
            // `compiling = is_compiling()` … `if compiling:`
            Expr::Name(name) if follow == Follow::Locals => {
                match self.local_value(name.id.as_str()) {
                    Some(value) if !matches!(value, Expr::Name(_)) => {
                        self.cond_of_depth(value, depth + 1, Follow::NotLocals)
                    }
                    _ => Cond::Unknown,
                }
            }
            // `_f is not None` on a global bound to a predicate or `None` (`model/eval.rs`).
            Expr::Compare(_) => self.eval_value(expr).truth(),
            _ => Cond::Unknown,
        }
    }

    pub(super) fn cond_of_call(&self, call: &ast::ExprCall) -> Cond {
        // `getattr(torch.compiler, "is_compiling", lambda: False)()`
        if let Some(qualified) = self.getattr_target(&call.func) {
            return atom_for_qualified(&qualified).map_or(Cond::Unknown, Cond::Atom);
        }
        if self.is_builtin(&call.func, "isinstance") {
            let container = |kind: &Expr| {
                matches!(kind, Expr::Name(n)
                    if matches!(n.id.as_str(), "dict" | "list" | "tuple" | "str")
                        && self.lookup(n.id.as_str()).is_none())
            };
            if let [Expr::Name(name), kind, ..] = &*call.arguments.args
                && self.is_first_input(name.id.as_str())
                && match kind {
                    Expr::Tuple(kinds) => {
                        !kinds.elts.is_empty() && kinds.elts.iter().all(container)
                    }
                    other => container(other),
                }
            {
                return Cond::Atom(Atom::InputIsContainer);
            }
            if let [Expr::Name(name), kind] = &*call.arguments.args
                && let Some((param, position)) = self.unchanged_param(name.id.as_str())
            {
                // `isinstance(shape, tuple)` / `torch.Size` on a parameter every traced call
                // passes `x.shape` to: True; `isinstance(shape, torch.Tensor)`: False.
                let atom = Cond::Atom(Atom::ParamIsSize(param, position));
                let is = |kind: &Expr, names: &[&str]| match kind {
                    Expr::Name(n) => {
                        names.contains(&n.id.as_str()) && self.lookup(n.id.as_str()).is_none()
                    }
                    other => self
                        .qualified(other)
                        .is_some_and(|q| names.contains(&q.as_str())),
                };
                if is(kind, &["tuple", "torch.Size"]) {
                    return atom;
                }
                if is(kind, &["torch.Tensor"]) {
                    return Cond::Not(Box::new(atom));
                }
            }
            return Cond::Unknown;
        }
        if self.is_builtin(&call.func, "hasattr") {
            if let [object, Expr::StringLiteral(attr), ..] = &*call.arguments.args
                && let Some(base) = self.qualified(object)
            {
                return Cond::Atom(Atom::Probe(format!("{base}.{}", attr.value.to_str())));
            }
            return Cond::Unknown;
        }
        if let Expr::Name(name) = &*call.func {
            if let Some(Binding::Predicate(cond)) = self.lookup(name.id.as_str()) {
                return cond.clone();
            }
            // `p = getattr(torch.compiler, "is_compiling", None)` … `p()`
            if let Some(value) = self.local_value(name.id.as_str())
                && let Some(cond) = self.predicate_reference(value)
            {
                return cond;
            }
        }
        match self.resolve(&call.func) {
            Some(Sym::Dotted(qualified)) => {
                if let Some(atom) = atom_for_qualified(&qualified) {
                    Cond::Atom(atom)
                } else if self.is_project_dotted(&qualified) {
                    Cond::Atom(Atom::Call(Sym::Dotted(qualified)))
                } else {
                    Cond::Unknown
                }
            }
            Some(sym) => Cond::Atom(Atom::Call(sym)),
            None => Cond::Unknown,
        }
    }

    pub(super) fn add_guard(&mut self, test: &Expr) -> Option<GuardIdx> {
        let cond = self.cond_of(test);
        if !cond.is_interesting() {
            return None;
        }
        if let Some(func) = self.current_function() {
            cond.for_each_size_param(&mut |name, position| {
                let checked = &mut self.summary.functions[func as usize].size_checked_params;
                if !checked.iter().any(|(n, _)| n == name) {
                    checked.push((name.to_owned(), position));
                }
            });
            self.note_context_atoms(func, &cond);
        }
        let idx = self.summary.guards.len() as GuardIdx;
        let location = self.location(test.range().start().into());
        let end_location = self.location(test.range().end().into());
        self.summary.guards.push(Guard {
            cond,
            func: self.current_function(),
            location,
            end_location,
        });
        Some(idx)
    }

    /// The current guard path and probes, to restore with [`SemanticModel::restore`].
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            path: self.path.len(),
            probes: self.probes.len(),
        }
    }

    pub(crate) fn restore(&mut self, mark: Mark) {
        self.path.truncate(mark.path);
        self.probes.truncate(mark.probes);
    }

    /// Records `test` as a guard (when it mentions something we understand) and enters its
    /// `branch`; returns the guard so a caller can switch to the other branch.
    pub(crate) fn enter_guard(&mut self, test: &Expr, branch: Branch) -> Option<GuardIdx> {
        let guard = self.add_guard(test);
        if let Some(g) = guard {
            self.path.push(PathStep::Guard(g, branch));
        }
        guard
    }

    pub(crate) fn push_step(&mut self, step: PathStep) {
        self.path.push(step);
    }

    pub(crate) fn pop_step(&mut self) {
        self.path.pop();
    }

    /// The steps (guards taken, exception-only entry) that lead to the code being visited.
    pub fn path(&self) -> &[PathStep] {
        &self.path
    }

    /// Is `qualified` probed (`hasattr`/`getattr`) by a guard or `and`-chain around this code?
    pub fn is_probed(&self, qualified: &str) -> bool {
        self.probes.iter().any(|p| p == qualified)
            || self.path.iter().any(|step| match step {
                PathStep::Guard(g, _) => self.summary.guards[*g as usize]
                    .cond
                    .mentions_probe(qualified),
                PathStep::AfterException | PathStep::FailureOnly | PathStep::MisuseOnly => false,
            })
    }

    pub(crate) fn push_probes(&mut self, test: &Expr) {
        fn collect(cond: &Cond, out: &mut Vec<String>) {
            match cond {
                Cond::Atom(Atom::Probe(name)) => out.push(name.clone()),
                Cond::And(items) => items.iter().for_each(|c| collect(c, out)),
                _ => {}
            }
        }
        let cond = self.cond_of(test);
        collect(&cond, &mut self.probes);
    }

    // ----- emitting findings ----------------------------------------------------------------

    pub fn location(&self, offset: u32) -> Location {
        self.lines.location(self.source, offset)
    }

    /// The 1-based row of `offset`: `location(offset).row` without counting the column.
    pub fn row(&self, offset: u32) -> u32 {
        self.lines.row(self.source, offset)
    }

    pub fn edit(&self, range: TextRange, content: impl Into<String>) -> Edit {
        Edit {
            start: range.start().into(),
            end: range.end().into(),
            content: content.into(),
            location: self.location(range.start().into()),
            end_location: self.location(range.end().into()),
        }
    }

    // ----- definitions ----------------------------------------------------------------------
}
