//! Guard conditions: the part of an `if` test that tells whether code runs under `torch.compile`.
//!
//! A test is reduced to a small boolean formula over atoms we understand (is_compiling-like,
//! export/tracing predicates, `hasattr` probes, calls to project functions that may be predicates);
//! everything else is `Unknown`. Evaluation is three-valued.

use super::Sym;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportPredicate {
    /// `torch.compiler.is_exporting()`: True inside torch.compile on some torch versions, missing before 2.7.
    IsExporting,
    /// `torch.onnx.is_in_onnx_export()`: False under torch.compile.
    OnnxExport,
    /// `torch.jit.is_tracing()`: False under torch.compile.
    JitTracing,
}

impl ExportPredicate {
    pub fn display(self) -> &'static str {
        match self {
            ExportPredicate::IsExporting => "torch.compiler.is_exporting()",
            ExportPredicate::OnnxExport => "torch.onnx.is_in_onnx_export()",
            ExportPredicate::JitTracing => "torch.jit.is_tracing()",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Atom {
    /// True exactly when Dynamo is tracing (`torch.compiler.is_compiling()` and friends).
    Compiling,
    Export(ExportPredicate),
    /// `hasattr(<dotted>, "<attr>")` or `getattr(<dotted>, "<attr>", ...)`: a feature probe.
    Probe(String),
    /// A call to something that may be a project predicate; resolved when linking.
    Call(Sym),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    Atom(Atom),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Const(bool),
    Unknown,
}

/// Three-valued truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    True,
    False,
    Unknown,
}

impl Truth {
    pub fn not(self) -> Truth {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        }
    }
    pub fn from_bool(value: bool) -> Truth {
        if value { Truth::True } else { Truth::False }
    }
}

/// How the evaluator treats each kind of atom.
pub struct Assumptions<'a> {
    pub compiling: bool,
    /// Value of export predicates; `None` = unknown (torch-version dependent).
    pub is_exporting: Option<bool>,
    /// Resolves a project call to the predicate formula of the called function, if it is one.
    pub resolve_call: &'a dyn Fn(&Sym) -> Option<Cond>,
}

impl Cond {
    /// True when the formula mentions anything worth keeping (otherwise it is dropped early).
    pub fn is_interesting(&self) -> bool {
        match self {
            Cond::Atom(_) => true,
            Cond::Not(inner) => inner.is_interesting(),
            Cond::And(items) | Cond::Or(items) => items.iter().any(Cond::is_interesting),
            Cond::Const(_) | Cond::Unknown => false,
        }
    }

    pub fn mentions_probe(&self, attr: &str) -> bool {
        match self {
            Cond::Atom(Atom::Probe(name)) => name == attr,
            Cond::Not(inner) => inner.mentions_probe(attr),
            Cond::And(items) | Cond::Or(items) => items.iter().any(|c| c.mentions_probe(attr)),
            _ => false,
        }
    }

    /// The first export predicate this formula mentions, if any (through project predicates too).
    pub fn export_predicate(
        &self,
        resolve: &dyn Fn(&Sym) -> Option<Cond>,
        depth: u32,
    ) -> Option<ExportPredicate> {
        if depth > 8 {
            return None;
        }
        match self {
            Cond::Atom(Atom::Export(kind)) => Some(*kind),
            Cond::Atom(Atom::Call(sym)) => {
                resolve(sym).and_then(|c| c.export_predicate(resolve, depth + 1))
            }
            Cond::Not(inner) => inner.export_predicate(resolve, depth),
            Cond::And(items) | Cond::Or(items) => items
                .iter()
                .find_map(|c| c.export_predicate(resolve, depth)),
            _ => None,
        }
    }

    pub fn eval(&self, assume: &Assumptions<'_>) -> Truth {
        self.eval_depth(assume, 0)
    }

    fn eval_depth(&self, assume: &Assumptions<'_>, depth: u32) -> Truth {
        if depth > 8 {
            return Truth::Unknown;
        }
        match self {
            Cond::Const(value) => Truth::from_bool(*value),
            Cond::Unknown => Truth::Unknown,
            Cond::Atom(Atom::Compiling) => Truth::from_bool(assume.compiling),
            Cond::Atom(Atom::Export(ExportPredicate::IsExporting)) => match assume.is_exporting {
                Some(value) => Truth::from_bool(value),
                None => Truth::Unknown,
            },
            // ONNX export and TorchScript tracing are never active inside torch.compile.
            Cond::Atom(Atom::Export(_)) => {
                if assume.compiling {
                    Truth::False
                } else {
                    Truth::Unknown
                }
            }
            Cond::Atom(Atom::Probe(_)) => Truth::Unknown,
            Cond::Atom(Atom::Call(sym)) => match (assume.resolve_call)(sym) {
                Some(cond) => cond.eval_depth(assume, depth + 1),
                None => Truth::Unknown,
            },
            Cond::Not(inner) => inner.eval_depth(assume, depth).not(),
            Cond::And(items) => Self::eval_junction(items, Truth::False, assume, depth),
            Cond::Or(items) => Self::eval_junction(items, Truth::True, assume, depth),
        }
    }

    /// `and` is decided by its first False operand, `or` by its first True one; otherwise an
    /// Unknown operand makes the whole Unknown.
    fn eval_junction(
        items: &[Cond],
        decisive: Truth,
        assume: &Assumptions<'_>,
        depth: u32,
    ) -> Truth {
        let mut result = decisive.not();
        for item in items {
            match item.eval_depth(assume, depth) {
                truth if truth == decisive => return decisive,
                Truth::Unknown => result = Truth::Unknown,
                _ => {}
            }
        }
        result
    }
}

/// Qualified names of functions that are True exactly while Dynamo traces.
pub const COMPILING_PREDICATES: &[&str] = &[
    "torch.compiler.is_compiling",
    "torch.compiler.is_dynamo_compiling",
    "torch._dynamo.is_compiling",
    "torch._dynamo.external_utils.is_compiling",
    "torch._utils.is_compiling",
    // Hugging Face's wrappers of torch.compiler.is_compiling(), used across model code.
    "transformers.utils.is_torchdynamo_compiling",
    "transformers.utils.import_utils.is_torchdynamo_compiling",
];

pub fn export_predicate_of(qualified: &str) -> Option<ExportPredicate> {
    match qualified {
        "torch.compiler.is_exporting"
        | "torch._dynamo.is_exporting"
        | "transformers.utils.is_torchdynamo_exporting"
        | "transformers.utils.import_utils.is_torchdynamo_exporting" => {
            Some(ExportPredicate::IsExporting)
        }
        "torch.onnx.is_in_onnx_export" => Some(ExportPredicate::OnnxExport),
        "torch.jit.is_tracing" | "torch._C._get_tracing_state" => Some(ExportPredicate::JitTracing),
        _ => None,
    }
}

/// The atom for a call to a function known by qualified name, if it is a guard predicate.
pub fn atom_for_qualified(qualified: &str) -> Option<Atom> {
    if COMPILING_PREDICATES.contains(&qualified) {
        return Some(Atom::Compiling);
    }
    export_predicate_of(qualified).map(Atom::Export)
}
