//! What one file contributes to the project model: definitions, call sites, guards, and the rule
//! findings whose fate depends on facts only the whole project knows (is this function traced?).

use super::Sym;
use super::cond::Cond;
use crate::diagnostics::Fix;
use crate::source::Location;
use std::collections::HashMap;
use std::path::PathBuf;

pub type FileId = u32;
pub type FuncIdx = u32;
pub type GuardIdx = u32;

#[derive(Debug, Default)]
pub struct FunctionInfo {
    pub name: String,
    /// Local qualified name of the class this is a method of (directly), if any.
    pub class: Option<String>,
    pub compile_decorated: bool,
    /// `@torch.compiler.disable` / `@torch._dynamo.disable`: Dynamo never traces it.
    pub disabled: bool,
    /// `@torch._dynamo.disable(recursive=False)`: Dynamo skips this frame but still traces the
    /// functions it calls.
    pub disabled_frame_only: bool,
    pub calls: Vec<Sym>,
    /// When every `return` yields a guard formula, the function is a predicate with this formula.
    pub predicate: Option<Cond>,
}

#[derive(Debug, Default)]
pub struct ClassInfo {
    pub qualname: String,
    pub bases: Vec<Sym>,
}

/// A guard (`if` test) recorded because its formula mentions something we understand.
#[derive(Debug)]
pub struct Guard {
    pub cond: Cond,
    pub func: Option<FuncIdx>,
    pub location: Location,
    pub end_location: Location,
}

/// One step of the guard path leading to a piece of code: guard index and the branch taken.
pub type GuardStep = (GuardIdx, bool);

/// Whether a finding needs the linked project to decide if it is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Reported only when the enclosing function is traced by Dynamo and the code is not eager-only.
    CompiledRegion,
    /// Reported wherever it is (configuration, tests, version floor).
    Anywhere,
}

#[derive(Debug)]
pub struct Candidate {
    pub code: &'static str,
    pub message: String,
    pub location: Location,
    pub end_location: Location,
    pub fix: Option<Fix>,
    pub func: Option<FuncIdx>,
    pub path: Vec<GuardStep>,
    pub scope: Scope,
    /// This finding breaks the graph or crashes Dynamo (what CR002 looks for behind export guards).
    pub breaks_or_crashes: bool,
}

#[derive(Debug, Default)]
pub struct FileSummary {
    pub path: PathBuf,
    pub module: String,
    pub functions: Vec<FunctionInfo>,
    pub classes: Vec<ClassInfo>,
    /// Local qualified name → function index, for functions and methods.
    pub function_by_name: HashMap<String, FuncIdx>,
    /// Local qualified name → class index.
    pub class_by_name: HashMap<String, u32>,
    /// Module-level import bindings (name → dotted target), used to follow re-exports.
    pub imports: HashMap<String, String>,
    /// Module-level names bound to a guard formula (`_is_compiling = getattr(torch.compiler, ...)`).
    pub predicate_aliases: HashMap<String, Cond>,
    /// Targets of `torch.compile(...)` calls and compile roots found in this file.
    pub compile_roots: Vec<(Option<FuncIdx>, Sym)>,
    pub guards: Vec<Guard>,
    pub candidates: Vec<Candidate>,
    /// Diagnostics decided within the file (syntax errors, unreadable, too deep).
    pub file_diagnostics: Vec<Candidate>,
    /// Row → noqa directive on that row.
    pub noqa: HashMap<u32, crate::diagnostics::Noqa>,
}
