//! Tests of the running torch's version, evaluated to the versions on which they hold.
//!
//! ```python
//! _TORCH_GE_2 = version.parse(torch.__version__) >= version.parse("2.0")
//! def forward(self, x):
//!     if _TORCH_GE_2:
//!         s = x.untyped_storage()
//!     else:
//!         s = x.storage()     # no torch that can compile this takes this branch
//! ```
//!
//! Code under `torch.compile` only runs on a torch that has it (and at or above the project's
//! floor), so a branch whose test is False on every such version is never traced, exactly like a
//! branch under `if not is_compiling():`. A comparison of the torch version with a literal is the
//! atom `version >= X` (`Atom::TorchAtLeast`), or its negation: `v > "2.0"` is `v >= 2.0.1`,
//! `v < "2.1"` is `not v >= 2.1.0`, `v <= "2.1"` is `not v >= 2.1.1`. The atom is True when the
//! lowest version that can compile is at or above X, and otherwise Unknown: no upper bound on
//! the torch is known, so no test of this kind is ever False by itself — only the negation of a
//! True one is, which is what makes an `else:` (or an `if IS_OLD_TORCH:`) dead.
//!
//! The readings of the torch version understood: `torch.__version__` (a `str` subclass that
//! compares as a version since torch 1.10), that text or its `.split(...)[0]` passed to
//! `packaging.version.parse` / `Version` / `LooseVersion` / `pkg_resources.parse_version`, and
//! `tuple(int(p) for p in <text>.split(".")[:n])` / `tuple(map(int, ...[:n]))` compared with a
//! tuple literal of n ints, and `int(<text>.split(".")[0])` (the major part) compared with an
//! int. Flags are module-level names bound once to such a test, or to `not` / `and` / `or` of
//! other flags; a name bound twice to different tests is not one. A flag of another project
//! module, imported or read as a module attribute, is `Atom::ProjectFlag`, decided when linking.

use super::SemanticModel;
use crate::semantic::Sym;
use crate::semantic::cond::{Atom, Cond};
use crate::semantic::data::TORCH;
use ruff_python_ast::{self as ast, Expr, Number};

/// How an expression reads the running torch's version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VersionReading {
    /// Compared as a version: `torch.__version__`, `version.parse(torch.__version__)`.
    Version,
    /// The first n numeric parts, as a tuple of ints.
    Tuple(usize),
    /// The major part as an int: `int(torch.__version__.split(".")[0])`.
    Major,
}

/// A version literal: its numeric parts, zero-padded to three, and how many were written.
type Literal = ([u32; 3], usize);

/// The torch version the first torch that can compile has, when torch's own table lacks it.
const COMPILE_RELEASE: [u32; 3] = [2, 0, 0];

/// `version >= at_least` on every torch that can compile with this floor?
pub(crate) fn torch_at_least_holds(
    at_least: [u32; 3],
    floor: Option<crate::config::TorchVersion>,
) -> bool {
    let compile = TORCH
        .api_added_in("torch.compile")
        .map_or(COMPILE_RELEASE, |v| [v.major, v.minor, 0]);
    let lowest = floor.map_or(compile, |f| compile.max([f.major, f.minor, 0]));
    lowest >= at_least
}

impl<'a> SemanticModel<'a> {
    /// Module level `NAME = <torch version test>` or `NAME = <torch version reading>`: remembered
    /// so that a test reading NAME later understands it.
    pub(crate) fn note_torch_version_name(&mut self, target: &str, value: &Expr) {
        let cond = self.torch_version_cond(value, 0);
        let reading = self.version_reading(value, 0);
        // A second binding of the same name must agree with the first, or the name is neither.
        if let Some(cond) = cond {
            match self.torch_version_flags.get(target) {
                Some(known) if *known != cond => {
                    self.torch_version_flags
                        .insert(target.to_owned(), Cond::Unknown);
                }
                Some(_) => {}
                None => {
                    self.torch_version_flags.insert(target.to_owned(), cond);
                }
            }
        } else if self.torch_version_flags.contains_key(target) {
            self.torch_version_flags
                .insert(target.to_owned(), Cond::Unknown);
        }
        if let Some(reading) = reading {
            match self.torch_version_readings.get(target) {
                Some(known) if *known != Some(reading) => {
                    self.torch_version_readings.insert(target.to_owned(), None);
                }
                Some(_) => {}
                None => {
                    self.torch_version_readings
                        .insert(target.to_owned(), Some(reading));
                }
            }
        } else if self.torch_version_readings.contains_key(target) {
            self.torch_version_readings.insert(target.to_owned(), None);
        }
    }

    /// A module-level name not shadowed by a local of the enclosing functions.
    fn module_name<'m>(&self, expr: &'m Expr) -> Option<&'m str> {
        match expr {
            Expr::Name(name) if !self.is_enclosing_local(name.id.as_str()) => {
                Some(name.id.as_str())
            }
            _ => None,
        }
    }

    /// The formula of a torch version test (`None` when `expr` is no such test): a comparison
    /// of a version reading with a literal, a module flag, or `not` / `and` / `or` / `bool()` of
    /// them (an `and` / `or` needs one operand that is such a test; the others may be unknown).
    pub(crate) fn torch_version_cond(&self, expr: &Expr, depth: u32) -> Option<Cond> {
        if depth > super::MAX_EXPR_DEPTH {
            return None;
        }
        match expr {
            Expr::Name(_) | Expr::Attribute(_) => {
                if let Some(name) = self.module_name(expr)
                    && let Some(flag) = self.torch_version_flags.get(name)
                {
                    return Some(flag.clone());
                }
                // A name imported from a project module (or read as its attribute): that
                // module's flag, if it is one, decided when linking. The fast check first: most
                // names read for truth are locals and attributes of `self`.
                if !self.may_resolve_to_project(expr) {
                    return None;
                }
                let qualified = self.qualified(expr)?;
                Some(Cond::Atom(Atom::ProjectFlag(Sym::Dotted(qualified))))
            }
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => self
                .torch_version_cond(&unary.operand, depth + 1)
                .map(|inner| Cond::Not(Box::new(inner))),
            Expr::Call(call)
                if call.arguments.keywords.is_empty()
                    && let [arg] = &*call.arguments.args
                    && self.is_builtin(&call.func, "bool") =>
            {
                self.torch_version_cond(arg, depth + 1)
            }
            Expr::BoolOp(boolop) => {
                let items: Vec<Option<Cond>> = boolop
                    .values
                    .iter()
                    .map(|v| self.torch_version_cond(v, depth + 1))
                    .collect();
                if items.iter().all(Option::is_none) {
                    return None;
                }
                let items = items
                    .into_iter()
                    .map(|c| c.unwrap_or(Cond::Unknown))
                    .collect();
                Some(match boolop.op {
                    ast::BoolOp::And => Cond::And(items),
                    ast::BoolOp::Or => Cond::Or(items),
                })
            }
            Expr::Compare(compare) if compare.ops.len() == 1 => {
                let right = compare.comparators.first()?;
                let (reading, op, literal) =
                    if let Some(reading) = self.version_reading(&compare.left, depth + 1) {
                        (reading, compare.ops[0], right)
                    } else {
                        let reading = self.version_reading(right, depth + 1)?;
                        (reading, flip(compare.ops[0])?, &*compare.left)
                    };
                let (parts, written) = match reading {
                    VersionReading::Version => self.version_literal(literal)?,
                    VersionReading::Major => ([int_literal(literal)?, 0, 0], 1),
                    VersionReading::Tuple(n) => match tuple_literal(literal)? {
                        lit @ (_, written) if written == n => lit,
                        _ => return None,
                    },
                };
                // `v > L` is `v >= L` with its last written part one higher for a tuple (whose
                // parts are all written), or with the patch one higher for a version.
                let above = |mut parts: [u32; 3]| {
                    let last = match reading {
                        VersionReading::Version => 2,
                        VersionReading::Tuple(_) | VersionReading::Major => written - 1,
                    };
                    parts[last] = parts[last].checked_add(1)?;
                    Some(parts)
                };
                let at_least = |parts| Cond::Atom(Atom::TorchAtLeast(parts));
                let not = |cond| Cond::Not(Box::new(cond));
                Some(match op {
                    ast::CmpOp::GtE => at_least(parts),
                    ast::CmpOp::Gt => at_least(above(parts)?),
                    ast::CmpOp::Lt => not(at_least(parts)),
                    ast::CmpOp::LtE => not(at_least(above(parts)?)),
                    _ => return None,
                })
            }
            _ => None,
        }
    }

    /// How `expr` reads the running torch's version, if it does.
    fn version_reading(&self, expr: &Expr, depth: u32) -> Option<VersionReading> {
        if depth > super::MAX_EXPR_DEPTH {
            return None;
        }
        if self.is_torch_version_attr(expr) {
            return Some(VersionReading::Version);
        }
        if let Some(name) = self.module_name(expr) {
            return self.torch_version_readings.get(name).copied().flatten();
        }
        let Expr::Call(call) = expr else {
            return None;
        };
        if !call.arguments.keywords.is_empty() {
            return None;
        }
        match &*call.arguments.args {
            // `int(torch.__version__.split(".")[0])`
            [Expr::Subscript(subscript)]
                if self.is_builtin(&call.func, "int")
                    && is_index(&subscript.slice, 0)
                    && split_of(&subscript.value)
                        .is_some_and(|(text, sep)| sep == "." && self.is_version_text(text)) =>
            {
                Some(VersionReading::Major)
            }
            [text] if self.is_version_constructor(&call.func) => self
                .is_version_text(text)
                .then_some(VersionReading::Version),
            [Expr::Generator(generator)] if self.is_builtin(&call.func, "tuple") => {
                // `tuple(int(p) for p in <text>.split(".")[:n])`
                let [comprehension] = &*generator.generators else {
                    return None;
                };
                let (Expr::Name(var), Expr::Call(element)) =
                    (&comprehension.target, &*generator.elt)
                else {
                    return None;
                };
                let converts_var = comprehension.ifs.is_empty()
                    && !comprehension.is_async
                    && self.is_builtin(&element.func, "int")
                    && element.arguments.keywords.is_empty()
                    && matches!(&*element.arguments.args, [Expr::Name(arg)] if arg.id == var.id);
                if !converts_var {
                    return None;
                }
                self.split_parts(&comprehension.iter)
                    .map(VersionReading::Tuple)
            }
            [Expr::Call(mapped)] if self.is_builtin(&call.func, "tuple") => {
                // `tuple(map(int, <text>.split(".")[:n]))`
                match &*mapped.arguments.args {
                    [Expr::Name(int), parts]
                        if self.is_builtin(&mapped.func, "map")
                            && mapped.arguments.keywords.is_empty()
                            && int.id.as_str() == "int"
                            && self.lookup("int").is_none() =>
                    {
                        self.split_parts(parts).map(VersionReading::Tuple)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `torch.__version__` (through any import alias).
    fn is_torch_version_attr(&self, expr: &Expr) -> bool {
        matches!(expr, Expr::Attribute(a) if a.attr.id.as_str() == "__version__")
            && self
                .qualified(expr)
                .is_some_and(|q| q == "torch.__version__" || q == "torch.version.__version__")
    }

    /// The torch version's text: `torch.__version__`, `str(torch.__version__)`, or its
    /// `.split(sep)[0]` (the release without a local suffix).
    fn is_version_text(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Call(call)
                if self.is_builtin(&call.func, "str")
                    && call.arguments.keywords.is_empty()
                    && let [inner] = &*call.arguments.args =>
            {
                self.is_version_text(inner)
            }
            // `.split("+")[0]` drops a local suffix; `.split(".")[0]` keeps only the major part,
            // which is no version text (`parse("2") < parse("2.1")`).
            Expr::Subscript(subscript) if is_index(&subscript.slice, 0) => {
                split_of(&subscript.value)
                    .is_some_and(|(text, sep)| sep != "." && self.is_version_text(text))
            }
            other => self.is_torch_version_attr(other),
        }
    }

    /// `<text>.split(".")[:n]`: the number of parts kept.
    fn split_parts(&self, expr: &Expr) -> Option<usize> {
        let Expr::Subscript(subscript) = expr else {
            return None;
        };
        let Expr::Slice(slice) = &*subscript.slice else {
            return None;
        };
        if slice.lower.is_some() || slice.step.is_some() {
            return None;
        }
        let n = match slice.upper.as_deref() {
            Some(Expr::NumberLiteral(n)) => match &n.value {
                Number::Int(i) => i.as_u8()?,
                _ => return None,
            },
            _ => return None,
        };
        let (text, separator) = split_of(&subscript.value)?;
        (separator == "." && (1..=3).contains(&n) && self.is_version_text(text))
            .then_some(usize::from(n))
    }

    /// `packaging.version.parse`, `packaging.version.Version`, `LooseVersion`,
    /// `pkg_resources.parse_version` (wherever vendored).
    fn is_version_constructor(&self, func: &Expr) -> bool {
        self.qualified(func).is_some_and(|q| {
            [
                "packaging.version.parse",
                "packaging.version.Version",
                "version.LooseVersion",
                "version.StrictVersion",
                "pkg_resources.parse_version",
            ]
            .iter()
            .any(|suffix| q == *suffix || q.ends_with(&format!(".{suffix}")))
        })
    }

    /// `"2.0"` or `version.parse("2.0")`.
    fn version_literal(&self, expr: &Expr) -> Option<Literal> {
        match expr {
            Expr::StringLiteral(string) => parse_release(string.value.to_str()),
            Expr::Call(call)
                if call.arguments.keywords.is_empty()
                    && self.is_version_constructor(&call.func)
                    && let [Expr::StringLiteral(string)] = &*call.arguments.args =>
            {
                parse_release(string.value.to_str())
            }
            _ => None,
        }
    }
}

/// `x.split(sep)`: `x` and the separator.
fn split_of(expr: &Expr) -> Option<(&Expr, &str)> {
    let Expr::Call(call) = expr else {
        return None;
    };
    let Expr::Attribute(attribute) = &*call.func else {
        return None;
    };
    match &*call.arguments.args {
        [Expr::StringLiteral(separator)]
            if attribute.attr.id.as_str() == "split" && call.arguments.keywords.is_empty() =>
        {
            Some((&attribute.value, separator.value.to_str()))
        }
        _ => None,
    }
}

/// `[0]`-style index: an int literal equal to `index`.
fn is_index(slice: &Expr, index: u8) -> bool {
    matches!(slice, Expr::NumberLiteral(n)
        if matches!(&n.value, Number::Int(i) if i.as_u8() == Some(index)))
}

/// A non-negative int literal.
fn int_literal(expr: &Expr) -> Option<u32> {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => u32::try_from(i.as_u64()?).ok(),
            _ => None,
        },
        _ => None,
    }
}

/// `"2"`, `"2.1"`, `"2.1.3"`: a release of one to three numeric parts (a pre-release, a local
/// suffix or a fourth part is not understood).
fn parse_release(text: &str) -> Option<Literal> {
    let mut parts = [0u32; 3];
    let mut written = 0;
    for part in text.trim().split('.') {
        if written == 3 || part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        parts[written] = part.parse().ok()?;
        written += 1;
    }
    Some((parts, written))
}

/// `(2, 1)`: a tuple of one to three int literals.
fn tuple_literal(expr: &Expr) -> Option<Literal> {
    let Expr::Tuple(tuple) = expr else {
        return None;
    };
    if tuple.elts.is_empty() || tuple.elts.len() > 3 {
        return None;
    }
    let mut parts = [0u32; 3];
    for (slot, element) in parts.iter_mut().zip(tuple.elts.iter()) {
        let Expr::NumberLiteral(number) = element else {
            return None;
        };
        let Number::Int(int) = &number.value else {
            return None;
        };
        *slot = u32::try_from(int.as_u64()?).ok()?;
    }
    Some((parts, tuple.elts.len()))
}

/// `a op b` read as `b op' a`.
fn flip(op: ast::CmpOp) -> Option<ast::CmpOp> {
    Some(match op {
        ast::CmpOp::Lt => ast::CmpOp::Gt,
        ast::CmpOp::LtE => ast::CmpOp::GtE,
        ast::CmpOp::Gt => ast::CmpOp::Lt,
        ast::CmpOp::GtE => ast::CmpOp::LtE,
        _ => return None,
    })
}
