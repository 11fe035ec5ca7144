//! Local facts across control flow. An assignment sets what a local holds (a tensor built on the
//! host, one living on the host, a numpy value, a list of `_shape_as_tensor` results); where paths
//! join — after `if`/`elif`/`else`, `try`/`except`, a loop, a `match` — a fact holds only when it
//! holds on every path that reaches the join. `m = x > 0` on one branch and `m = torch.ones(3)` on
//! the other leave `m` maybe on the device: `if m.any():` must not claim "no device sync".
//!
//! Most frames hold no such fact: every step below is free (no allocation, no walk) while the
//! facts are empty.
//!
//! Not intersected: tensor-ness (`Frame::locals`) and the value last assigned (`Frame::values`).
//! Tensor-ness joins as a may-fact in `model/value_join.rs` (`Tensor` on one branch, `None` on the
//! other stays `Tensor`: the finding holds on the path that holds the tensor), and `values`
//! doubles as "reassigned so far" for flag parameters.
//! Rebinding outside assignments (`with … as m`, `(m := …)`) forgets the name's facts rather
//! than computing them from the value.

use super::SemanticModel;
use super::value_join::ValueJoin;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

type FxSet<K> = rustc_hash::FxHashSet<K>;

/// The per-name facts an assignment sets and a join intersects. Keys borrow the names from the
/// syntax tree: a snapshot copies one table, not one string per name.
#[derive(Clone, Default, Debug)]
pub(crate) struct LocalFacts<'a> {
    /// Locals holding tensors built on the host (torch.tensor(...) without device=, ...).
    pub(super) host_built: FxSet<&'a str>,
    /// Locals holding tensors that live on the host by construction (no device sync to read).
    pub(super) on_host: FxSet<&'a str>,
    /// Locals holding numpy values (never tensors).
    pub(super) numpy_values: FxSet<&'a str>,
    /// Locals holding lists of `_shape_as_tensor` results.
    pub(super) shape_lists: FxSet<&'a str>,
    /// Locals holding a value that is not a tensor (`skip = False`): at a join, a path that
    /// leaves one there does not put the value on a device (`skip = False` then, on one branch,
    /// `skip = torch.rand([]) < p`: `if skip:` still reads a host value).
    pub(super) not_tensors: FxSet<&'a str>,
}

impl<'a> LocalFacts<'a> {
    fn is_empty(&self) -> bool {
        self.host_built.is_empty()
            && self.on_host.is_empty()
            && self.numpy_values.is_empty()
            && self.shape_lists.is_empty()
            && self.not_tensors.is_empty()
    }

    /// Keeps only the facts that hold on `other`'s path too.
    fn intersect(&mut self, other: &LocalFacts<'a>) {
        self.host_built.retain(|n| other.host_built.contains(n));
        self.numpy_values.retain(|n| other.numpy_values.contains(n));
        self.shape_lists.retain(|n| other.shape_lists.contains(n));
        // On the host on both paths, or on the host on one and not a tensor on the other.
        for name in &other.on_host {
            if self.not_tensors.contains(name) {
                self.on_host.insert(name);
            }
        }
        self.on_host
            .retain(|n| other.on_host.contains(n) || other.not_tensors.contains(n));
        self.not_tensors.retain(|n| other.not_tensors.contains(n));
    }

    fn forget(&mut self, name: &str) {
        self.host_built.remove(name);
        self.on_host.remove(name);
        self.numpy_values.remove(name);
        self.shape_lists.remove(name);
        self.not_tensors.remove(name);
    }

    fn clear(&mut self) {
        self.host_built.clear();
        self.on_host.clear();
        self.numpy_values.clear();
        self.shape_lists.clear();
        self.not_tensors.clear();
    }
}

/// A branching statement being visited: the facts before it, and what the paths that reach its
/// end agree on so far.
pub(crate) struct Join<'a> {
    before: LocalFacts<'a>,
    reached: Option<LocalFacts<'a>>,
    /// The values each path leaves in its locals (`model/value_join.rs`).
    values: ValueJoin,
}

impl<'a> SemanticModel<'a> {
    fn facts_mut(&mut self) -> Option<&mut LocalFacts<'a>> {
        self.function_frame_mut().map(|frame| &mut frame.facts)
    }

    /// Starts a branching statement (the first path starts from the current facts).
    pub(crate) fn begin_join(&mut self) -> Join<'a> {
        self.begin_join_of(false)
    }

    /// Starts a `try`: its paths interleave (a handler starts anywhere in the body), so the
    /// values its locals may hold stay last-assignment.
    pub(crate) fn begin_try_join(&mut self) -> Join<'a> {
        self.begin_join_of(true)
    }

    fn begin_join_of(&mut self, interleaved: bool) -> Join<'a> {
        Join {
            before: self
                .function_frame()
                .map(|frame| frame.facts.clone())
                .unwrap_or_default(),
            reached: None,
            values: self.begin_value_join(interleaved),
        }
    }

    /// Starts another path of `join` from the facts before the statement.
    pub(crate) fn start_path(&mut self, join: &mut Join<'a>) {
        self.start_value_path(&mut join.values);
        if let Some(facts) = self.facts_mut() {
            facts.clone_from(&join.before);
        }
    }

    /// Ends a path: when it `reaches` the end of the statement (does not `return`, `raise`,
    /// `break` or `continue`), its facts join the others.
    pub(crate) fn end_path(&mut self, join: &mut Join<'a>, reaches: bool) {
        self.end_value_path(&mut join.values, reaches);
        let Some(facts) = self.facts_mut() else {
            return;
        };
        if !reaches {
            return;
        }
        match &mut join.reached {
            Some(reached) => reached.intersect(facts),
            None => join.reached = Some(std::mem::take(facts)),
        }
    }

    /// Ends the statement: the facts after it are those every reaching path holds (`fall_through`:
    /// the statement can also be passed without taking any path, as an `if` without `else`).
    pub(crate) fn finish_join(&mut self, join: Join<'a>, fall_through: bool) {
        let Join {
            before,
            reached,
            values,
        } = join;
        self.finish_value_join(values, fall_through);
        let after = match reached {
            Some(mut reached) => {
                if fall_through {
                    reached.intersect(&before);
                }
                reached
            }
            // No path reaches past the statement: what follows is dead; keep the facts before.
            None => before,
        };
        if let Some(facts) = self.facts_mut() {
            *facts = after;
        }
    }

    /// Before a loop (before a `while` test, which runs again after each iteration): the facts
    /// before it, and no fact for a name the loop binds — a later iteration sees what the
    /// previous one assigned.
    pub(crate) fn begin_loop(&mut self, target: Option<&Expr>, body: &[Stmt]) -> Join<'a> {
        // A loop's iterations are not paths that follow one another in the log: its locals keep
        // last-assignment values.
        let join = self.begin_join_of(true);
        if !join.before.is_empty()
            && let Some(facts) = self.facts_mut()
        {
            if let Some(target) = target {
                forget_bound_in_expr(facts, target);
            }
            forget_bound(facts, body);
        }
        join
    }

    /// After a loop's body (before its `else`): the facts of zero iterations joined with those of
    /// the last one; with a `break` or `continue` in the body, a path can leave from the middle of
    /// it, so no fact survives for a name the body binds.
    pub(crate) fn finish_loop(&mut self, join: Join<'a>, body: &[Stmt]) {
        let Join { before, values, .. } = join;
        self.finish_value_join(values, true);
        let Some(facts) = self.facts_mut() else {
            return;
        };
        if before.is_empty() {
            facts.clear();
            return;
        }
        if !facts.is_empty() && leaves_early(body, 0) {
            forget_bound(facts, body);
        }
        facts.intersect(&before);
    }

    /// After a loop's `else`: a `break` skips it, so with one in the body what the `else` binds
    /// keeps no fact.
    pub(crate) fn after_loop_else(&mut self, body: &[Stmt], orelse: &[Stmt]) {
        if let Some(facts) = self.facts_mut()
            && !facts.is_empty()
            && leaves_early(body, 0)
        {
            forget_bound(facts, orelse);
        }
    }

    /// The facts a path starting anywhere inside `body` can rely on (an exception handler's, a
    /// `finally`'s): none for a name the body binds.
    pub(crate) fn forget_bound_in(&mut self, body: &[Stmt]) {
        if let Some(facts) = self.facts_mut()
            && !facts.is_empty()
        {
            forget_bound(facts, body);
        }
    }

    /// No fact for the names a binding outside an assignment rebinds (`with … as m`, `m := …`).
    pub(crate) fn forget_target(&mut self, target: &Expr) {
        self.note_params_rebound(target);
        if let Some(facts) = self.facts_mut()
            && !facts.is_empty()
        {
            forget_bound_in_expr(facts, target);
        }
    }

    /// No fact for the names a `match` pattern captures (`case m:`).
    pub(crate) fn forget_pattern_names(&mut self, pattern: &ast::Pattern) {
        if let Some(facts) = self.facts_mut()
            && !facts.is_empty()
        {
            let mut forget = ForgetBound { facts, depth: 0 };
            forget.visit_pattern(pattern);
        }
    }

    /// The current facts, taken out (a path set aside to resume later, as a `try` body before
    /// its `else`).
    pub(crate) fn take_facts(&mut self) -> LocalFacts<'a> {
        self.facts_mut().map(std::mem::take).unwrap_or_default()
    }

    pub(crate) fn put_facts(&mut self, facts: LocalFacts<'a>) {
        if let Some(current) = self.facts_mut() {
            *current = facts;
        }
    }
}

/// Does a path through `body` end it early: `return`, `raise`, `break`, `continue`?
pub(crate) fn path_ends(body: &[Stmt]) -> bool {
    matches!(
        body.last(),
        Some(Stmt::Return(_) | Stmt::Raise(_) | Stmt::Continue(_) | Stmt::Break(_))
    )
}

/// A `break` or `continue` of this loop (not of a nested one) anywhere in `body`.
fn leaves_early(body: &[Stmt], depth: u32) -> bool {
    if depth > 64 {
        return true;
    }
    body.iter().any(|stmt| match stmt {
        Stmt::Break(_) | Stmt::Continue(_) => true,
        Stmt::If(stmt_if) => {
            leaves_early(&stmt_if.body, depth + 1)
                || stmt_if
                    .elif_else_clauses
                    .iter()
                    .any(|clause| leaves_early(&clause.body, depth + 1))
        }
        Stmt::With(with) => leaves_early(&with.body, depth + 1),
        Stmt::Try(stmt_try) => {
            leaves_early(&stmt_try.body, depth + 1)
                || stmt_try.handlers.iter().any(|handler| {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    leaves_early(&handler.body, depth + 1)
                })
                || leaves_early(&stmt_try.orelse, depth + 1)
                || leaves_early(&stmt_try.finalbody, depth + 1)
        }
        Stmt::Match(stmt_match) => stmt_match
            .cases
            .iter()
            .any(|case| leaves_early(&case.body, depth + 1)),
        // A nested loop's `break` leaves that loop; its `else` belongs to this one.
        Stmt::For(stmt_for) => leaves_early(&stmt_for.orelse, depth + 1),
        Stmt::While(stmt_while) => leaves_early(&stmt_while.orelse, depth + 1),
        _ => false,
    })
}

fn forget_bound(facts: &mut LocalFacts<'_>, body: &[Stmt]) {
    let mut forget = ForgetBound { facts, depth: 0 };
    forget.visit_body(body);
}

fn forget_bound_in_expr(facts: &mut LocalFacts<'_>, target: &Expr) {
    let mut forget = ForgetBound { facts, depth: 0 };
    forget.visit_expr(target);
}

/// Forgets every name a piece of code binds (assignment and loop targets, `with ... as`, walrus,
/// `except ... as`, capture patterns, nested `def`/`class` names). Past its depth bound (hostile
/// nesting) it forgets everything.
struct ForgetBound<'f, 'a> {
    facts: &'f mut LocalFacts<'a>,
    depth: u32,
}

const FORGET_MAX_DEPTH: u32 = 256;

impl<'b> Visitor<'b> for ForgetBound<'_, '_> {
    fn visit_stmt(&mut self, stmt: &'b Stmt) {
        if self.depth > FORGET_MAX_DEPTH {
            self.facts.clear();
            return;
        }
        self.depth += 1;
        match stmt {
            // Their bodies bind in their own scope.
            Stmt::FunctionDef(def) => self.facts.forget(def.name.id.as_str()),
            Stmt::ClassDef(class) => self.facts.forget(class.name.id.as_str()),
            _ => visitor::walk_stmt(self, stmt),
        }
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'b Expr) {
        if self.depth > FORGET_MAX_DEPTH {
            self.facts.clear();
            return;
        }
        if let Expr::Name(name) = expr {
            if name.ctx == ast::ExprContext::Store {
                self.facts.forget(name.id.as_str());
            }
            return;
        }
        self.depth += 1;
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }

    fn visit_except_handler(&mut self, handler: &'b ast::ExceptHandler) {
        let ast::ExceptHandler::ExceptHandler(inner) = handler;
        if let Some(name) = &inner.name {
            self.facts.forget(name.id.as_str());
        }
        visitor::walk_except_handler(self, handler);
    }

    fn visit_pattern(&mut self, pattern: &'b ast::Pattern) {
        match pattern {
            ast::Pattern::MatchAs(ast::PatternMatchAs {
                name: Some(name), ..
            })
            | ast::Pattern::MatchStar(ast::PatternMatchStar {
                name: Some(name), ..
            })
            | ast::Pattern::MatchMapping(ast::PatternMatchMapping {
                rest: Some(name), ..
            }) => self.facts.forget(name.id.as_str()),
            _ => {}
        }
        if self.depth > FORGET_MAX_DEPTH {
            self.facts.clear();
            return;
        }
        self.depth += 1;
        visitor::walk_pattern(self, pattern);
        self.depth -= 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::scan::test_support::scan_rows;

    /// `(row, claims no device sync)` for each BR001/SY002 finding of `source` (a module whose
    /// `forward`s are compiled regions).
    fn host_claims(source: &str) -> Vec<(u32, bool)> {
        let header = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n";
        let mut claims: Vec<(u32, bool)> = scan_rows(header, source, false)
            .into_iter()
            .filter(|(_, d)| matches!(d.code, "BR001" | "SY002"))
            .map(|(row, d)| (row, d.message.contains("no device sync")))
            .collect();
        claims.sort_unstable();
        claims
    }

    #[test]
    fn if_else_joins_to_host_only_when_every_branch_builds_on_the_host() {
        let source = r#"
    def forward(self, x, c: bool = True):
        if c:
            m = x > 0
        else:
            m = torch.ones(3)
        if m.any():
            pass
        if c:
            h = torch.ones(3)
        elif x.shape[0] > 2:
            h = torch.zeros(3)
        else:
            h = torch.arange(3)
        if h.any():
            pass
        if c:
            r = torch.ones(3)
        else:
            return x
        return r.item()
"#;
        assert_eq!(host_claims(source), [(7, false), (15, true), (21, true)]);
    }

    #[test]
    fn a_branch_that_skips_the_assignment_keeps_what_was_there() {
        let source = r#"
    def forward(self, x, c: bool = True):
        m = x > 0
        if c:
            m = torch.ones(3)
        if m.any():
            pass
        skip = False
        if self.training:
            skip = torch.rand([]) < 0.5
        if skip:
            pass
        if c:
            u = torch.ones(3)
        return u.item()
"#;
        // `u` is unbound on the path that skips the `if`: no path-wide fact, no host claim.
        assert_eq!(host_claims(source), [(6, false), (11, true), (15, false)]);
    }

    #[test]
    fn loops_see_what_a_previous_iteration_assigned() {
        // Each case in its own frame: after a break inside a loop Dynamo gives up on the whole
        // frame, and scan folds that frame's later breaks into the first (`scan/merge.rs`).
        let source = r#"
    def forward(self, x, ms):
        m = torch.ones(3)
        for _ in range(3):
            if m.any():
                pass
            m = x > 0
        return x


class W(nn.Module):
    def forward(self, x, ms):
        w = torch.ones(3)
        while w.any():
            w = x > 0
        t = torch.ones(3)
        for t in ms:
            pass
        if t.any():
            pass
        return x


class C(nn.Module):
    def forward(self, x):
        c = torch.ones(3)
        for _ in range(3):
            c = x > 0
            if x.shape[0] > 2:
                continue
            c = torch.ones(3)
        if c.any():
            pass
        return x


class N(nn.Module):
    def forward(self, x):
        for _ in range(3):
            k = torch.ones(3)
            if k.any():
                pass
        return x
"#;
        assert_eq!(
            host_claims(source),
            [
                (5, false),
                (14, false),
                (19, false),
                (32, false),
                (41, true)
            ]
        );
    }

    #[test]
    fn with_as_and_walrus_rebind_without_the_old_fact() {
        let source = r#"
    def forward(self, x, ctx):
        m = torch.ones(3)
        with ctx(x) as m:
            pass
        if m.any():
            pass
        n = torch.ones(3)
        if (n := x > 0).any():
            pass
        if n.any():
            pass
        return x
"#;
        assert_eq!(host_claims(source), [(6, false), (9, false), (11, false)]);
    }

    #[test]
    fn try_and_match_join_their_paths() {
        let source = r#"
    def forward(self, x, k: int = 0):
        m = torch.ones(3)
        try:
            m = x > 0
        except ValueError:
            pass
        if m.any():
            pass
        try:
            n = torch.ones(3)
        except ValueError:
            raise
        if n.any():
            pass
        p = torch.ones(3)
        match k:
            case 0:
                p = x > 0
            case _:
                pass
        if p.any():
            pass
        match k:
            case 0:
                q = torch.ones(3)
            case _:
                q = torch.zeros(3)
        return q.item()
"#;
        assert_eq!(
            host_claims(source),
            [(8, false), (14, true), (22, false), (29, true)]
        );
    }
}
