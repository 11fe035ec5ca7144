//! Compile gates: the conditions that guard a `torch.compile(...)` call, with the configuration
//! fields they read resolved to the class that declares them, and the declared defaults of class
//! fields (dataclass, pydantic, attrs, plain class attributes). Collected per file by the model
//! (`model/gates.rs`); evaluated after linking, when the declaring class can be found anywhere in
//! the project.

use super::Sym;
use crate::source::Location;

/// A gate condition over configuration fields, in the shape the source wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateExpr {
    Const(bool),
    /// Anything we do not model (environment, device checks, calls): never decides a gate.
    Unknown,
    Not(Box<GateExpr>),
    And(Vec<GateExpr>),
    Or(Vec<GateExpr>),
    /// `obj.field` where `obj`'s class is known (a parameter annotation or a constructor call).
    Field {
        class: Sym,
        field: String,
        /// As written (`train_config.multi_scale`), for the message.
        text: String,
    },
    /// The compile switch itself (`cfg.compile`, `args.compile`, a local named `use_compile`):
    /// assumed True, since the question is whether turning it on has any effect.
    CompileFlag,
}

/// A `torch.compile(...)` call and the `if` tests it sits under (all must hold for it to run).
#[derive(Clone, Debug)]
pub struct CompileGate {
    pub call_location: Location,
    pub call_end_location: Location,
    /// Each enclosing test, already negated for `else` branches.
    pub tests: Vec<GateExpr>,
}

/// The literal boolean default a class declares for one of its fields.
#[derive(Clone, Debug)]
pub struct FieldDefault {
    pub name: String,
    pub default: bool,
    pub location: Location,
}

/// Why a gate is False: the field, its default and where the default is declared.
#[derive(Clone, Debug)]
pub struct FieldReading {
    pub text: String,
    pub class: String,
    pub field: String,
    pub default: bool,
    pub path: std::path::PathBuf,
    pub location: Location,
}

/// Three-valued evaluation; `lookup` gives a field's declared default (None: unknown). The readings
/// returned are the fields that decided the result (for a False gate: why it is False).
pub fn eval_gate(
    expr: &GateExpr,
    lookup: &dyn Fn(&Sym, &str, &str) -> Option<FieldReading>,
) -> (Option<bool>, Vec<FieldReading>) {
    match expr {
        GateExpr::Const(value) => (Some(*value), Vec::new()),
        GateExpr::Unknown => (None, Vec::new()),
        GateExpr::CompileFlag => (Some(true), Vec::new()),
        GateExpr::Field { class, field, text } => match lookup(class, field, text) {
            Some(reading) => (Some(reading.default), vec![reading]),
            None => (None, Vec::new()),
        },
        GateExpr::Not(inner) => {
            let (value, readings) = eval_gate(inner, lookup);
            (value.map(|v| !v), readings)
        }
        // `and` is decided by its first False operand (an unknown elsewhere cannot change that);
        // `or` by its first True one.
        GateExpr::And(items) => junction(items, false, lookup),
        GateExpr::Or(items) => junction(items, true, lookup),
    }
}

fn junction(
    items: &[GateExpr],
    decisive: bool,
    lookup: &dyn Fn(&Sym, &str, &str) -> Option<FieldReading>,
) -> (Option<bool>, Vec<FieldReading>) {
    let mut unknown = false;
    let mut all = Vec::new();
    for item in items {
        match eval_gate(item, lookup) {
            (Some(value), readings) if value == decisive => return (Some(decisive), readings),
            (Some(_), mut readings) => all.append(&mut readings),
            (None, _) => unknown = true,
        }
    }
    if unknown {
        (None, Vec::new())
    } else {
        (Some(!decisive), all)
    }
}
