//! Torch knowledge as data: the tables under `rules/data/*.toml`, embedded at compile time and
//! parsed once. Nothing here names a rule; rules and the model read the same tables.
//! `tests/python/test_data_tables.py` checks every entry against the installed torch.

use crate::config::TorchVersion;
use crate::semantic::generated::Generated;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

/// FNV-1a: the tables are looked up with short identifiers on the scanner's hottest paths
/// (every attribute, call and assignment), where SipHash showed up at 6% of a profile.
#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for byte in bytes {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }
}

/// A set of names with the fast hasher.
pub type NameSet = HashSet<String, BuildHasherDefault<Fnv>>;

const PREDICATES: &str = rules_table!("predicates");
const MODULE_BASES: &str = rules_table!("module_bases");
const TORCH_MODULES: &str = rules_table!("torch_modules");
const TENSOR: &str = rules_table!("tensor");
const DTYPES: &str = rules_table!("dtypes");
const STDLIB: &str = rules_table!("stdlib");
const API_VERSIONS: &str = rules_table!("torch_api_versions");
const WARNINGS: &str = rules_table!("warnings");

/// What a guard predicate asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PredicateKind {
    /// True exactly while Dynamo traces.
    Compiling,
    /// `torch.compiler.is_exporting()` and its wrappers.
    Exporting,
    /// `torch.onnx.is_in_onnx_export()`.
    OnnxExport,
    /// `torch.jit.is_tracing()`.
    JitTracing,
    /// `torch.jit.is_scripting()`.
    JitScripting,
    /// `torch.fx._symbolic_trace.is_fx_tracing()`.
    FxTracing,
}

impl PredicateKind {
    /// An export / tracing / scripting predicate: a guard on it alone says nothing about compile.
    pub fn is_export_like(self) -> bool {
        !matches!(self, PredicateKind::Compiling)
    }
}

/// A predicate's value inside `torch.compile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompileValue {
    True,
    False,
    Unknown,
}

#[derive(Debug, serde::Deserialize)]
struct RangeValue {
    torch: String,
    value: CompileValue,
}

#[derive(Debug, serde::Deserialize)]
struct PredicateEntry {
    name: String,
    kind: PredicateKind,
    under_compile: Vec<RangeValue>,
}

#[derive(serde::Deserialize)]
struct PredicateFile {
    predicate: Vec<PredicateEntry>,
}

/// One guard predicate from the table.
#[derive(Debug, PartialEq)]
pub struct Predicate {
    pub name: String,
    pub kind: PredicateKind,
    /// `(range, value inside torch.compile)`, ranges as written in the table.
    under_compile: Vec<(VersionRange, CompileValue)>,
}

impl Predicate {
    /// The value inside torch.compile on every supported torch (at or above `floor`), or
    /// `Unknown` when the supported versions disagree.
    pub fn value_under_compile(&self, floor: Option<TorchVersion>) -> CompileValue {
        let mut seen: Option<CompileValue> = None;
        for (range, value) in &self.under_compile {
            if floor.is_some_and(|floor| range.entirely_below(floor)) {
                continue;
            }
            match seen {
                None => seen = Some(*value),
                Some(previous) if previous != *value => return CompileValue::Unknown,
                Some(_) => {}
            }
        }
        seen.unwrap_or(CompileValue::Unknown)
    }
}

/// A `>=a,<b` range of torch versions (either bound optional).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct VersionRange {
    at_least: Option<TorchVersion>,
    below: Option<TorchVersion>,
}

impl VersionRange {
    pub(crate) fn parse(text: &str) -> Option<VersionRange> {
        let mut range = VersionRange {
            at_least: None,
            below: None,
        };
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(v) = part.strip_prefix(">=") {
                range.at_least = Some(TorchVersion::parse(v)?);
            } else if let Some(v) = part.strip_prefix('<') {
                range.below = Some(TorchVersion::parse(v)?);
            } else {
                return None;
            }
        }
        Some(range)
    }

    pub(crate) fn contains(&self, version: TorchVersion) -> bool {
        self.at_least.is_none_or(|low| version >= low)
            && self.below.is_none_or(|high| version < high)
    }

    /// Does every version of this range lie below `floor`?
    fn entirely_below(&self, floor: TorchVersion) -> bool {
        self.below.is_some_and(|below| below <= floor)
    }
}

/// `torch_modules.toml` (generated by `scripts/torch_data/gen_modules.py`): every path torch
/// binds an nn.Module class to, with the torch versions it exists on.
#[derive(serde::Deserialize)]
struct TorchModulesFile {
    modules: HashMap<String, Vec<String>>,
}

#[derive(serde::Deserialize)]
struct ModuleBasesFile {
    bases: Vec<String>,
    exclude: Vec<String>,
    exclude_prefixes: Vec<String>,
    autograd_functions: Vec<String>,
}

#[derive(serde::Deserialize)]
struct TensorFile {
    metadata_attributes: Vec<String>,
    host_attributes: Vec<String>,
    tensor_attributes: Vec<String>,
    host_value_methods: Vec<String>,
    same_kind_methods: Vec<String>,
    tensor_returning_methods: Vec<String>,
    host_preserving_methods: Vec<String>,
    tensor_annotations: Vec<String>,
    host_annotations: Vec<String>,
    host_builtins: Vec<String>,
    host_modules: Vec<String>,
    host_functions: Vec<String>,
    host_builders: Vec<String>,
    host_only_builders: Vec<String>,
    host_factories: Vec<String>,
    stackers: Vec<String>,
    host_preserving_stackers: Vec<String>,
}

#[derive(serde::Deserialize)]
struct DtypesFile {
    dtypes: Vec<String>,
}

#[derive(serde::Deserialize)]
struct StdlibFile {
    versions: HashMap<String, Vec<String>>,
}

#[derive(serde::Deserialize)]
struct WarningsFile {
    logger_methods: Vec<String>,
    third_party_logger_methods: Vec<String>,
    logger_names: Vec<String>,
    deprecation_helpers: Vec<String>,
    misuse_phrases: Vec<String>,
}

#[derive(serde::Deserialize)]
struct ApiFile {
    apis: HashMap<String, ApiEntry>,
}

#[derive(serde::Deserialize)]
struct ApiEntry {
    added: String,
    #[serde(default = "default_true")]
    verified: bool,
}

fn default_true() -> bool {
    true
}

/// Every table, parsed.
pub struct TorchData {
    pub predicates: HashMap<String, Predicate>,
    module_bases: NameSet,
    module_exclude: NameSet,
    module_exclude_prefixes: Vec<String>,
    autograd_functions: NameSet,
    pub metadata_attributes: NameSet,
    pub tensor_attributes: NameSet,
    pub host_value_methods: NameSet,
    /// Methods torch.Tensor lacks whose result is of the receiver's kind (`a.copy()`): never a tensor.
    pub same_kind_methods: NameSet,
    pub tensor_returning_methods: NameSet,
    pub host_preserving_methods: NameSet,
    pub tensor_annotations: NameSet,
    pub host_annotations: NameSet,
    pub host_builtins: NameSet,
    host_modules: Vec<String>,
    host_functions: NameSet,
    pub host_builders: NameSet,
    pub host_only_builders: NameSet,
    pub host_factories: NameSet,
    pub stackers: NameSet,
    pub host_preserving_stackers: NameSet,
    pub dtypes: NameSet,
    /// Union over the Python versions in the table: a module that is stdlib on any of them.
    pub stdlib: NameSet,
    api_added: HashMap<String, TorchVersion>,
    api_last_segments: NameSet,
    /// Logger methods that emit a record (stdlib and third-party `*_once`).
    pub logger_methods: NameSet,
    /// Receiver names that hold a logger by convention.
    pub logger_names: NameSet,
    /// Names of project helpers that announce a deprecation.
    pub deprecation_helpers: NameSet,
    /// Lower-case fragments of warning text that say the caller's input is deprecated / ignored.
    pub misuse_phrases: Vec<String>,
    /// The tables generated from installed torches (`generated.rs`).
    pub generated: Generated,
}

fn set(items: Vec<String>) -> NameSet {
    items.into_iter().collect()
}

impl TorchData {
    fn load() -> TorchData {
        // The tables are part of the binary; tests/data_tables (Rust) and the pytest keep them valid.
        let predicates: PredicateFile =
            serde_json::from_str(PREDICATES).expect("rules/data/predicates.toml parses");
        let bases: ModuleBasesFile =
            serde_json::from_str(MODULE_BASES).expect("rules/data/module_bases.toml parses");
        let torch_modules: TorchModulesFile =
            serde_json::from_str(TORCH_MODULES).expect("rules/data/torch_modules.toml parses");
        let tensor: TensorFile =
            serde_json::from_str(TENSOR).expect("rules/data/tensor.toml parses");
        let dtypes: DtypesFile =
            serde_json::from_str(DTYPES).expect("rules/data/dtypes.toml parses");
        let stdlib: StdlibFile =
            serde_json::from_str(STDLIB).expect("rules/data/stdlib.toml parses");
        let apis: ApiFile =
            serde_json::from_str(API_VERSIONS).expect("rules/data/torch_api_versions.toml parses");
        let warnings: WarningsFile =
            serde_json::from_str(WARNINGS).expect("rules/data/warnings.toml parses");

        let predicates = predicates
            .predicate
            .into_iter()
            .map(|entry| {
                let under_compile = entry
                    .under_compile
                    .iter()
                    .map(|rv| {
                        let range = VersionRange::parse(&rv.torch)
                            .unwrap_or_else(|| panic!("bad torch range {:?}", rv.torch));
                        (range, rv.value)
                    })
                    .collect();
                (
                    entry.name.clone(),
                    Predicate {
                        name: entry.name,
                        kind: entry.kind,
                        under_compile,
                    },
                )
            })
            .collect();

        let mut api_added = HashMap::new();
        let mut api_last_segments = NameSet::default();
        for (name, entry) in apis.apis {
            if !entry.verified {
                continue;
            }
            let Some(version) = TorchVersion::parse(&entry.added) else {
                continue;
            };
            api_last_segments.insert(name.rsplit('.').next().unwrap_or(&name).to_owned());
            api_added.insert(name, version);
        }

        TorchData {
            predicates,
            // A class that is a Module on any torch version is one for reachability.
            module_bases: set(bases
                .bases
                .into_iter()
                .chain(torch_modules.modules.into_keys())
                .collect()),
            module_exclude: set(bases.exclude),
            module_exclude_prefixes: bases.exclude_prefixes,
            autograd_functions: set(bases.autograd_functions),
            metadata_attributes: set(tensor
                .metadata_attributes
                .into_iter()
                .chain(tensor.host_attributes)
                .collect()),
            tensor_attributes: set(tensor.tensor_attributes),
            host_value_methods: set(tensor.host_value_methods),
            same_kind_methods: set(tensor.same_kind_methods),
            tensor_returning_methods: set(tensor.tensor_returning_methods),
            host_preserving_methods: set(tensor.host_preserving_methods),
            tensor_annotations: set(tensor.tensor_annotations),
            host_annotations: set(tensor.host_annotations),
            host_builtins: set(tensor.host_builtins),
            host_modules: tensor.host_modules.into_iter().map(|m| m + ".").collect(),
            host_functions: set(tensor.host_functions),
            host_builders: set(tensor.host_builders),
            host_only_builders: set(tensor.host_only_builders),
            host_factories: set(tensor.host_factories),
            stackers: set(tensor.stackers),
            host_preserving_stackers: set(tensor.host_preserving_stackers),
            dtypes: set(dtypes.dtypes),
            stdlib: stdlib.versions.into_values().flatten().collect(),
            api_added,
            api_last_segments,
            logger_methods: set(warnings
                .logger_methods
                .into_iter()
                .chain(warnings.third_party_logger_methods)
                .collect()),
            logger_names: set(warnings.logger_names),
            deprecation_helpers: set(warnings.deprecation_helpers),
            misuse_phrases: warnings.misuse_phrases,
            generated: Generated::load(),
        }
    }

    /// Is the class with this qualified name (outside the project) an `nn.Module`?
    pub fn is_module_base(&self, dotted: &str) -> bool {
        if self.module_bases.contains(dotted) {
            return true;
        }
        // torch.nn.Linear, torch.nn.Sequential, torch.nn.modules.conv.Conv2d, ...: all Modules.
        dotted.strip_prefix("torch.nn.").is_some_and(|rest| {
            let last = rest.rsplit('.').next().unwrap_or(rest);
            last.starts_with(|c: char| c.is_ascii_uppercase())
                && !self.module_exclude.contains(last)
                && !self
                    .module_exclude_prefixes
                    .iter()
                    .any(|p| rest.starts_with(p.as_str()))
        })
    }

    /// Is the class with this qualified name (outside the project) `torch.autograd.Function`?
    pub fn is_autograd_function_base(&self, dotted: &str) -> bool {
        self.autograd_functions.contains(dotted)
    }

    /// Is `rest` (a name under `torch.`) in a submodule whose functions return host values?
    pub fn in_host_module(&self, rest: &str) -> bool {
        self.host_modules
            .iter()
            .any(|m| rest.starts_with(m.as_str()))
    }

    pub fn is_host_function(&self, last: &str) -> bool {
        self.host_functions.contains(last)
    }

    /// The torch release that added this API, when the table knows it.
    pub fn api_added_in(&self, qualified: &str) -> Option<TorchVersion> {
        self.api_added.get(qualified).copied()
    }

    /// Cheap pre-check before building a qualified name.
    pub fn api_may_end_with(&self, segment: &str) -> bool {
        self.api_last_segments.contains(segment)
    }
}

/// The tables, parsed on first use.
pub static TORCH: LazyLock<TorchData> = LazyLock::new(TorchData::load);

/// Higher-order ops whose function arguments Dynamo traces as bodies (speculated subgraphs), by
/// argument position: a body is part of the traced region like a direct call. Hand-written:
/// torch records no machine-readable map from a HOP to its body arguments; each entry is proven
/// in tests/python/test_peer_suite_proofs.py (a break in the body fails the op at its line).
/// `torch.utils.checkpoint.checkpoint` is modelled on its own (its sites are kept for BR008).
pub fn hop_body_positions(qualified: &str) -> Option<&'static [usize]> {
    match qualified {
        _ if COND_SPELLINGS.contains(&qualified) => Some(&[1, 2]),
        "torch.ops.higher_order.wrap" => Some(&[0]),
        _ => None,
    }
}

/// The public and private spellings of `torch.cond`: the same function object on torch 2.2,
/// 2.5, 2.8 and 2.11 (tests/python/test_cond_branch_proofs.py checks identity on the installed
/// torch), so a call through any of them is the same higher-order op.
pub const COND_SPELLINGS: &[&str] = &[
    "torch.cond",
    "torch._higher_order_ops.cond",
    "torch._higher_order_ops.cond.cond",
    "functorch.experimental.control_flow.cond",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_parses() {
        let data = TorchData::load();
        assert!(data.predicates.len() > 5);
        assert!(data.stdlib.contains("tarfile"));
        assert!(data.is_module_base("torch.nn.Conv2d"));
        assert!(!data.is_module_base("torch.nn.Parameter"));
    }

    #[test]
    fn predicate_values_follow_the_floor() {
        let data = TorchData::load();
        let exporting = &data.predicates["torch.compiler.is_exporting"];
        assert_eq!(exporting.value_under_compile(None), CompileValue::Unknown);
        assert_eq!(
            exporting.value_under_compile(TorchVersion::parse("2.9")),
            CompileValue::True
        );
        let scripting = &data.predicates["torch.jit.is_scripting"];
        assert_eq!(scripting.value_under_compile(None), CompileValue::False);
    }
}
