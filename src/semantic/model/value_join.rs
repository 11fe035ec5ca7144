//! Which values may a local hold after a join? `Frame::values` keeps the value last assigned (in
//! source order), which after `if c: m = x > 0 else: m = helper(x)` is `helper(x)`: the mask
//! assigned on the other branch is lost. This records, for a name assigned on some path of an
//! `if`/`elif`/`else` or `match`, every value that may reach the code after it (a may-analysis,
//! unlike `model/flow.rs`'s must-facts): each reaching path's last assignment, and the value from
//! before the statement when a path does not assign the name (or no path is taken).
//!
//! Cheap where nothing branches: assignments are logged only inside a branching statement, the
//! log is dropped when the outermost one ends, and most names never get an entry in `may`.
//! `try` statements keep last-assignment (their paths interleave: a handler starts anywhere in
//! the body).
//!
//! Tensor-ness joins the same way, as a may-fact: after the statement a local is a tensor when a
//! reaching path left one there (`if not pairs: e = e[:, perm] else: e = (a, b)` leaves `e` a
//! tensor on the first path, where a later `e[:, mask]` breaks), not a tensor when every reaching
//! path left a host value, unknown otherwise. An unpacking or loop target rebinds the name to
//! something unknown on its path (`forget`).

use super::SemanticModel;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::Expr;

type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Per function frame.
#[derive(Default)]
pub(crate) struct ValueJoins<'a> {
    /// Names that may hold more than one value here: every value that may reach (the one in
    /// `Frame::values` among them).
    may: FxMap<&'a str, Vec<&'a Expr>>,
    /// Assignments inside the branching statements being visited, in order.
    log: Vec<Assigned<'a>>,
    /// Branching statements (and loops) open around the current code.
    depth: u32,
}

/// One logged assignment (or the result of an inner join, for the outer one).
struct Assigned<'a> {
    name: &'a str,
    /// The values the name may hold after it; `None` for a rebinding the record cannot follow
    /// (the values join skips it, as it did before the kinds were joined).
    now: Option<Held<'a>>,
    /// The values it may have held before it (none: unbound).
    before: Held<'a>,
    /// The tensor kinds it may hold after it, and before it.
    now_kinds: Kinds,
    before_kinds: Kinds,
}

/// A set of tensor kinds (a bit each); empty: unbound.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Kinds(u8);

impl Kinds {
    fn of(kind: Option<TensorKind>) -> Self {
        match kind {
            Some(TensorKind::Tensor) => Kinds(1),
            Some(TensorKind::NotTensor) => Kinds(2),
            Some(TensorKind::Unknown) => Kinds(4),
            None => Kinds(0),
        }
    }

    fn union(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }

    /// May it hold a tensor: a tensor on some path; a host value on every one; else unknown.
    fn join(self) -> Option<TensorKind> {
        match self.0 {
            0 => None,
            k if k & 1 != 0 => Some(TensorKind::Tensor),
            2 => Some(TensorKind::NotTensor),
            _ => Some(TensorKind::Unknown),
        }
    }
}

/// What a name may hold: most assignments hold one value (no allocation for them).
#[derive(Clone)]
enum Held<'a> {
    One(&'a Expr),
    Many(Vec<&'a Expr>),
}

impl<'a> Held<'a> {
    fn of(values: Vec<&'a Expr>) -> Self {
        match values.as_slice() {
            [one] => Held::One(one),
            _ => Held::Many(values),
        }
    }

    fn as_slice(&self) -> &[&'a Expr] {
        match self {
            Held::One(one) => std::slice::from_ref(one),
            Held::Many(values) => values,
        }
    }
}

/// A branching statement's part of the record: where its log starts, the current path's start,
/// and the log ranges of the paths that reach its end.
pub(crate) struct ValueJoin {
    log_start: usize,
    /// `Frame::params_rebound_unrecorded` before the statement (it only grows).
    rebound_start: usize,
    path_start: usize,
    reaching: Vec<(usize, usize)>,
    /// Paths that do not follow one another in the log (`try`): keep last-assignment.
    opaque: bool,
}

impl<'a> ValueJoins<'a> {
    /// `name = value` in this function (`previous`: the value `Frame::values` held before;
    /// `kind`, `previous_kind`: its tensor kind now and in `Frame::locals` before).
    pub(crate) fn assigned(
        &mut self,
        name: &'a str,
        value: &'a Expr,
        previous: Option<&'a Expr>,
        kind: TensorKind,
        previous_kind: Option<TensorKind>,
    ) {
        let alternatives = if self.may.is_empty() {
            None
        } else {
            self.may.remove(name)
        };
        if self.depth == 0 {
            return;
        }
        let before = match (alternatives, previous) {
            (Some(values), _) => Held::Many(values),
            (None, Some(previous)) => Held::One(previous),
            (None, None) => Held::Many(Vec::new()),
        };
        self.log.push(Assigned {
            name,
            now: Some(Held::One(value)),
            before,
            now_kinds: Kinds::of(Some(kind)),
            before_kinds: Kinds::of(previous_kind),
        });
    }

    /// A rebinding the record cannot follow (an unpacking target): the name keeps only what
    /// `Frame::values` says, and its kind on this path is `kind` (`previous_kind`: before).
    pub(crate) fn forget(
        &mut self,
        name: &'a str,
        kind: TensorKind,
        previous_kind: Option<TensorKind>,
    ) {
        if !self.may.is_empty() {
            self.may.remove(name);
        }
        if self.depth > 0 {
            self.log.push(Assigned {
                name,
                now: None,
                before: Held::Many(Vec::new()),
                now_kinds: Kinds::of(Some(kind)),
                before_kinds: Kinds::of(previous_kind),
            });
        }
    }
}

impl<'a> SemanticModel<'a> {
    /// Every value local `name` may hold here: one where a single assignment reaches, several
    /// after a join of paths that assign it differently; none when nothing simple was assigned.
    pub fn local_values(&self, name: &str) -> &[&'a Expr] {
        let Some(frame) = self.function_frame() else {
            return &[];
        };
        if let Some(values) = frame.value_joins.may.get(name) {
            return values;
        }
        frame
            .values
            .get(name)
            .map(std::slice::from_ref)
            .unwrap_or_default()
    }

    pub(crate) fn begin_value_join(&mut self, opaque: bool) -> ValueJoin {
        let Some(frame) = self.function_frame_mut() else {
            return ValueJoin {
                log_start: 0,
                rebound_start: 0,
                path_start: 0,
                reaching: Vec::new(),
                opaque: true,
            };
        };
        let rebound_start = frame.params_rebound_unrecorded.len();
        let joins = &mut frame.value_joins;
        joins.depth += 1;
        let start = joins.log.len();
        ValueJoin {
            log_start: start,
            rebound_start,
            path_start: start,
            reaching: Vec::new(),
            opaque,
        }
    }

    pub(crate) fn start_value_path(&self, join: &mut ValueJoin) {
        if let Some(frame) = self.function_frame() {
            join.path_start = frame.value_joins.log.len();
        }
    }

    pub(crate) fn end_value_path(&self, join: &mut ValueJoin, reaches: bool) {
        if let Some(frame) = self.function_frame()
            && reaches
        {
            join.reaching
                .push((join.path_start, frame.value_joins.log.len()));
        }
    }

    /// Ends the statement: each name a path assigned may hold what any reaching path left there
    /// (`fall_through`: the statement can be passed without taking a path).
    pub(crate) fn finish_value_join(&mut self, join: ValueJoin, fall_through: bool) {
        let Some(frame) = self.function_frame_mut() else {
            return;
        };
        let values = &frame.values;
        let locals = &mut frame.locals;
        let joins = &mut frame.value_joins;
        let param_names = &frame.param_names;
        let untouched = &mut frame.params_untouched_on_a_path;
        let rebound_unrecorded = &frame.params_rebound_unrecorded;
        joins.depth = joins.depth.saturating_sub(1);
        let start = join.log_start.min(joins.log.len());
        if !join.opaque && start < joins.log.len() {
            let mut names: Vec<&'a str> = Vec::new();
            for entry in &joins.log[start..] {
                if !names.contains(&entry.name) {
                    names.push(entry.name);
                }
            }
            let mut results = Vec::with_capacity(names.len());
            for name in names {
                let entries = || joins.log[start..].iter().filter(|e| e.name == name);
                // Kinds: every entry counts (an unpacking rebinds the kind too).
                let Some(first_any) = entries().next() else {
                    continue;
                };
                let mut kinds = Kinds::default();
                let mut before_kind_reaches = fall_through;
                for &(from, to) in &join.reaching {
                    match joins.log[from..to].iter().rev().find(|e| e.name == name) {
                        Some(last) => kinds = kinds.union(last.now_kinds),
                        None => before_kind_reaches = true,
                    }
                }
                if before_kind_reaches {
                    kinds = kinds.union(first_any.before_kinds);
                    // A parameter that only an unpacking or a loop target rebinds here, on some
                    // paths (`if isinstance(x, tuple): x, kinds = x`): on the others it is still
                    // what the caller passed, as after an assignment on one branch (below).
                    if entries().all(|e| e.now.is_none())
                        && param_names.iter().any(|p| p == name)
                        && rebound_unrecorded
                            .get(join.rebound_start..)
                            .is_some_and(|inside| inside.iter().any(|p| p == name))
                        && !values.contains_key(name)
                        && !untouched.iter().any(|p| p == name)
                    {
                        untouched.push(name.to_owned());
                    }
                }
                // Values: only the assignments the record follows.
                let first = entries().find(|e| e.now.is_some());
                let mut reach: Vec<&'a Expr> = Vec::new();
                let mut before_reaches = fall_through;
                for &(from, to) in &join.reaching {
                    match joins.log[from..to]
                        .iter()
                        .rev()
                        .find(|e| e.name == name && e.now.is_some())
                    {
                        Some(Assigned { now: Some(now), .. }) => {
                            push_distinct(&mut reach, now.as_slice())
                        }
                        _ => before_reaches = true,
                    }
                }
                if let Some(first) = first
                    && before_reaches
                {
                    push_distinct(&mut reach, first.before.as_slice());
                    // A parameter no assignment had bound before the statement, left as the
                    // caller passed it on a reaching path.
                    if first.before.as_slice().is_empty()
                        && param_names.iter().any(|p| p == name)
                        && !rebound_unrecorded.iter().any(|p| p == name)
                        && !untouched.iter().any(|p| p == name)
                    {
                        untouched.push(name.to_owned());
                    }
                }
                let before = first.map(|first| first.before.clone());
                results.push((name, reach, before, kinds, first_any.before_kinds));
            }
            for (name, reach, before, kinds, before_kinds) in results {
                if let Some(kind) = kinds.join() {
                    locals.insert(name.to_owned(), kind);
                }
                if joins.depth > 0 {
                    joins.log.push(Assigned {
                        name,
                        now: before.is_some().then(|| Held::of(reach.clone())),
                        before: before.clone().unwrap_or(Held::Many(Vec::new())),
                        now_kinds: kinds,
                        before_kinds,
                    });
                }
                let Some(_) = before else {
                    continue;
                };
                // Kept where it says more than `Frame::values` (the last assignment in source
                // order, which need not be on a reaching path).
                let last = values.get(name).copied();
                let same_as_last = matches!((reach.as_slice(), last), ([only], Some(last)) if std::ptr::eq(*only, last));
                if !reach.is_empty() && !same_as_last {
                    joins.may.insert(name, reach);
                } else {
                    joins.may.remove(name);
                }
            }
        }
        if joins.depth == 0 {
            joins.log.clear();
        }
    }
}

fn push_distinct<'a>(into: &mut Vec<&'a Expr>, values: &[&'a Expr]) {
    for value in values {
        if !into.iter().any(|v| std::ptr::eq(*v, *value)) {
            into.push(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scan::test_support::scan_rows;

    /// Rows (counted from the first line of `source`) of the BR003 findings of `source`, a module
    /// whose Module `forward`s are the roots.
    fn mask_rows(source: &str) -> Vec<u32> {
        let header = "import torch\nfrom torch import nn\n\n\ndef unknown(x):\n    return x\n";
        let mut rows: Vec<u32> = scan_rows(header, source, false)
            .into_iter()
            .filter(|(_, d)| d.code == "BR003")
            .map(|(row, _)| row)
            .collect();
        rows.sort_unstable();
        rows
    }

    #[test]
    fn a_mask_on_any_reaching_path_is_a_mask() {
        let source = r#"
class First(nn.Module):
    def forward(self, x, c: bool = True):
        if c:
            m = x > 0
        else:
            m = unknown(x)
        return x[m]


class Second(nn.Module):
    def forward(self, x, c: bool = True):
        m = unknown(x)
        if c:
            m = x > 0
        return x[m]


class Nested(nn.Module):
    def forward(self, x, c: bool = True, d: bool = True):
        m = unknown(x)
        if c:
            if d:
                m = x > 0
            else:
                m = unknown(x)
        return x[m]


class ByMatch(nn.Module):
    def forward(self, x, k: int = 0):
        match k:
            case 0:
                m = x > 0
            case _:
                m = unknown(x)
        return x[m]
"#;
        assert_eq!(mask_rows(source), [8, 16, 27, 37]);
    }

    #[test]
    fn a_mask_no_path_leaves_is_not_a_mask() {
        let source = r#"
class ReturnsOnTheMaskPath(nn.Module):
    def forward(self, x, c: bool = True):
        if c:
            m = x > 0
            return x
        else:
            m = unknown(x)
        return x[m]


class ReplacedOnEveryPath(nn.Module):
    def forward(self, x, c: bool = True):
        if c:
            m = x > 0
        else:
            m = unknown(x)
        m = unknown(m)
        return x[m]


class ReplacedInsideTheBranch(nn.Module):
    def forward(self, x, c: bool = True):
        if c:
            m = x > 0
            m = unknown(m)
        else:
            m = unknown(x)
        return x[m]


class UnpackedAfter(nn.Module):
    def forward(self, x, c: bool = True):
        if c:
            m = x > 0
        else:
            m = unknown(x)
        m, n = unknown(x)
        return x[m]
"#;
        assert_eq!(mask_rows(source), Vec::<u32>::new());
    }
}
