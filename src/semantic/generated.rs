//! Torch knowledge generated from installed torches by `scripts/gen_torch_data.py` (one generator
//! per source in `scripts/torch_data/`): ops by their aten tags, return kinds from torch's
//! annotations and stubs, the functions Dynamo refuses to trace (measured), the module classes it
//! will not wrap, and its graph-break registry. Each entry holds over a torch range; the tables say
//! which versions they were generated from. `tests/python/test_generated_tables.py` checks every
//! entry against the installed torch. Nothing here names a rule.

use super::data::{Fnv, NameSet, VersionRange};
use crate::config::TorchVersion;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::LazyLock;

const OP_TAGS: &str = rules_table!("op_tags");
const RETURN_TYPES: &str = rules_table!("return_types");
const SKIPPED_FUNCTIONS: &str = rules_table!("skipped_functions");
const SKIPPED_LIBRARY_FUNCTIONS: &str = rules_table!("skipped_library_functions");
const SKIPPED_TORCH_INTERNALS: &str = rules_table!("skipped_torch_internals");
const UNWRAPPED_MODULES: &str = rules_table!("unwrapped_modules");
const TENSOR_METHOD_BREAKS: &str = rules_table!("tensor_method_breaks");
const BUILTIN_BREAKS: &str = rules_table!("builtin_breaks");
const INPUT_CONTEXT_MANAGERS: &str = rules_table!("input_context_managers");
const DECORATOR_CONTEXT_MANAGERS: &str = rules_table!("decorator_context_managers");
const CROSSING_CONTEXT_MANAGERS: &str = rules_table!("crossing_context_managers");
const TENSOR_ATTRIBUTE_STORES: &str = rules_table!("tensor_attribute_stores");
const SCALAR_READS: &str = rules_table!("scalar_reads");
const INT_PARAMETERS: &str = rules_table!("int_parameters");
const GRAPH_BREAKS: &str = rules_table!("graph_breaks");
const TENSOR_MEMBERS: &str = rules_table!("tensor_members");
const DYNAMO_MARKERS: &str = rules_table!("dynamo_markers");

#[derive(serde::Deserialize)]
struct File<T> {
    versions: Vec<String>,
    entries: Vec<Group<T>>,
}

#[derive(serde::Deserialize)]
struct Group<T> {
    torch: String,
    names: Vec<String>,
    #[serde(flatten)]
    fields: T,
}

/// A generated table: each name's values with the torch ranges they hold for.
pub struct Versioned<T> {
    /// The torch versions the table was generated from, oldest first.
    versions: Vec<TorchVersion>,
    entries: HashMap<String, Vec<(VersionRange, T)>, BuildHasherDefault<Fnv>>,
}

impl<T: Clone + for<'de> serde::Deserialize<'de>> Versioned<T> {
    fn parse(text: &str, table: &str) -> Versioned<T> {
        let file: File<T> = serde_json::from_str(text)
            .unwrap_or_else(|error| panic!("rules/data/{table}.toml parses: {error}"));
        let mut versions: Vec<TorchVersion> = file
            .versions
            .iter()
            .map(|v| TorchVersion::parse(v).unwrap_or_else(|| panic!("bad version {v:?}")))
            .collect();
        versions.sort();
        let mut entries: HashMap<String, Vec<(VersionRange, T)>, BuildHasherDefault<Fnv>> =
            HashMap::default();
        for group in file.entries {
            let range = VersionRange::parse(&group.torch)
                .unwrap_or_else(|| panic!("bad torch range {:?} in {table}", group.torch));
            for name in group.names {
                entries
                    .entry(name)
                    .or_default()
                    .push((range, group.fields.clone()));
            }
        }
        Versioned { versions, entries }
    }
}

impl<T> Versioned<T> {
    /// The value on the newest torch the entry holds for (the newest generated version when it
    /// still holds there).
    pub fn latest(&self, name: &str) -> Option<&T> {
        let ranges = self.entries.get(name)?;
        self.versions
            .iter()
            .rev()
            .find_map(|v| ranges.iter().find(|(range, _)| range.contains(*v)))
            .map(|(_, value)| value)
    }

    /// The value on the newest generated torch, when the entry holds on every generated version
    /// at or above `floor` (every generated version without one): a fact the project can rely on
    /// whatever supported torch it runs.
    pub fn on_every_from(&self, name: &str, floor: Option<TorchVersion>) -> Option<&T> {
        let ranges = self.entries.get(name)?;
        let value_on = |v: TorchVersion| {
            ranges
                .iter()
                .find(|(range, _)| range.contains(v))
                .map(|(_, value)| value)
        };
        let mut newest = None;
        for version in &self.versions {
            if floor.is_some_and(|floor| *version < floor) {
                continue;
            }
            newest = Some(value_on(*version)?);
        }
        newest
    }

    /// Each generated torch at or above `floor` (every generated one without it) with the
    /// entry's value on it, oldest first, when the entry holds on each of them.
    pub fn each_version_from(
        &self,
        name: &str,
        floor: Option<TorchVersion>,
    ) -> Option<Vec<(TorchVersion, &T)>> {
        let ranges = self.entries.get(name)?;
        self.versions
            .iter()
            .filter(|version| floor.is_none_or(|floor| **version >= floor))
            .map(|version| {
                ranges
                    .iter()
                    .find(|(range, _)| range.contains(*version))
                    .map(|(_, value)| (*version, value))
            })
            .collect()
    }

    /// The values of `each_version_from`, without the versions.
    pub fn every_from(&self, name: &str, floor: Option<TorchVersion>) -> Option<Vec<&T>> {
        Some(
            self.each_version_from(name, floor)?
                .into_iter()
                .map(|(_, value)| value)
                .collect(),
        )
    }
}

/// `op_tags.toml`: the aten tags of the op a public spelling dispatches to.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct OpTags {
    pub tags: Vec<String>,
    /// The tagged aten overloads; `default` means every call.
    pub overloads: Vec<String>,
    /// What real Dynamo did with a call built from the op's schema: `breaks`, `traces` or
    /// `unmeasured` (a tag alone is no claim: some tagged ops Dynamo traces whole).
    #[serde(default)]
    pub dynamo: Option<String>,
    /// Optional arguments measured to make the call trace when given (`num_classes`), with
    /// their positions in the spelling's call.
    #[serde(default)]
    pub unless_given: Vec<String>,
    #[serde(default)]
    pub unless_positions: Vec<usize>,
    /// The same measurement with `capture_dynamic_output_shape_ops = True`: `breaks` for an op
    /// with no meta kernel (the flag does not help), `traces` where it does.
    #[serde(default)]
    pub captured: Option<String>,
}

impl OpTags {
    /// Tagged `dynamic_output_shape` and measured breaking under Dynamo.
    fn dynamic_shape_measured_breaking(&self) -> bool {
        self.tags.iter().any(|t| t == "dynamic_output_shape")
            && self.dynamo.as_deref() == Some("breaks")
    }

    /// Tagged `dynamic_output_shape` on every call (not only on one overload's arguments), and
    /// measured breaking whatever the optional arguments are.
    pub fn dynamic_shape_on_every_call(&self) -> bool {
        self.dynamic_shape_measured_breaking()
            && self.unless_given.is_empty()
            && self.overloads.iter().any(|o| o == "default")
    }

    /// Measured still breaking with `capture_dynamic_output_shape_ops = True`.
    pub fn breaks_with_capture(&self) -> bool {
        self.captured.as_deref() == Some("breaks")
    }

    /// Measured breaking unless one of `unless_given` is passed: `(keyword, position)` pairs.
    pub fn breaks_unless_given(&self) -> Option<impl Iterator<Item = (&str, usize)>> {
        (self.dynamic_shape_measured_breaking()
            && !self.unless_given.is_empty()
            && self.overloads.iter().any(|o| o == "default"))
        .then(|| {
            self.unless_given
                .iter()
                .map(String::as_str)
                .zip(self.unless_positions.iter().copied())
        })
    }
}

/// `return_types.toml`: what a function or Tensor method returns.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Returns {
    pub returns: String,
}

impl Returns {
    /// A tensor, or a tuple / list of tensors (whose elements are tensors), or either by overload.
    pub fn is_tensor(&self) -> bool {
        matches!(
            self.returns.as_str(),
            "tensor" | "tensors" | "tensor_or_tensors"
        )
    }
}

/// `skipped_functions.toml` / `unwrapped_modules.toml` / `tensor_method_breaks.toml` /
/// `builtin_breaks.toml` / `input_context_managers.toml`: the graph
/// break Dynamo raises.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Refusal {
    #[serde(default)]
    pub gb_type: Option<String>,
    /// Boolean arguments measured to make the call trace (`tensor_method_breaks.toml`:
    /// `"requires_grad=False@0"`: keyword, literal, position; -1 for keyword-only).
    #[serde(default)]
    pub traces_with: Vec<String>,
}

impl Refusal {
    /// `(keyword, literal, position)` of each `traces_with` entry.
    pub fn traces_with_specs(&self) -> impl Iterator<Item = (&str, bool, i64)> {
        self.traces_with.iter().filter_map(|spec| {
            let (assignment, position) = spec.rsplit_once('@')?;
            let (keyword, value) = assignment.split_once('=')?;
            Some((keyword, value == "True", position.parse::<i64>().ok()?))
        })
    }
}

/// `int_parameters.toml`: the parameters of a torch spelling its schemas type as ints or int
/// lists, with their positions (-1: keyword only, or not the same in every overload).
#[derive(Clone, Debug, serde::Deserialize)]
pub struct IntParameters {
    pub params: Vec<String>,
    pub positions: Vec<i64>,
    /// The spelling's one positional parameter is an int list: ints may be spread
    /// (`x.view(b, -1)`).
    pub varargs: bool,
    /// Per parameter (in `params` order), what Dynamo did when a data-dependent 0-d tensor was
    /// given there (measured by scripts/torch_data/int_parameter_breaks.py): the GB code of the
    /// break, `breaks` (a torch without a GB registry), `none` (compiled whole) or `unmeasured`.
    #[serde(default)]
    pub breaks: Vec<String>,
}

impl IntParameters {
    /// What was measured for parameter `param` (`unmeasured` when the table says nothing).
    pub fn measured(&self, param: &str) -> &str {
        self.params
            .iter()
            .position(|p| p == param)
            .and_then(|index| self.breaks.get(index))
            .map_or("unmeasured", String::as_str)
    }
}

/// `dynamo_markers.toml`: per target kind, the graph-break type a call of a target marked with
/// this callable gives in compiled code (absent: no break).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct MarkerEffects {
    #[serde(default)]
    pub function: Option<String>,
    #[serde(default)]
    pub module_class: Option<String>,
    #[serde(default)]
    pub module_instance: Option<String>,
    #[serde(default)]
    pub torch_function: Option<String>,
    #[serde(default)]
    pub forward_hook: Option<String>,
}

/// What a marker is applied to (`MarkerEffects`' fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerTarget {
    Function,
    ModuleClass,
    ModuleInstance,
    TorchFunction,
    /// A function registered as a module's forward (pre-)hook.
    ForwardHook,
}

impl MarkerEffects {
    pub fn on(&self, target: MarkerTarget) -> Option<&str> {
        match target {
            MarkerTarget::Function => self.function.as_deref(),
            MarkerTarget::ModuleClass => self.module_class.as_deref(),
            MarkerTarget::ModuleInstance => self.module_instance.as_deref(),
            MarkerTarget::TorchFunction => self.torch_function.as_deref(),
            MarkerTarget::ForwardHook => self.forward_hook.as_deref(),
        }
    }
}

/// A table whose entries are names only (`tensor_members.toml`).
#[derive(Clone, Debug, serde::Deserialize)]
struct Empty {}

/// `crossing_context_managers.toml`: what a compiled call does when the class is built before a
/// graph break and entered after it (`raises TypeError`, `leaves grad mode changed`).
#[derive(Clone, Debug, serde::Deserialize)]
pub struct CrossingOutcome {
    pub outcome: String,
}

/// `scalar_reads.toml`: what Dynamo does with a read of a tensor's value into Python (`t.item()`,
/// `int(t)`) by default, with `capture_scalar_outputs = True`, and in a `fullgraph=True` compile.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct ScalarRead {
    /// `breaks` or `traced`.
    pub default: String,
    /// `breaks` or `traced`.
    pub capture_scalar_outputs: String,
    /// `raises` or `traced`.
    pub fullgraph: String,
}

/// `graph_breaks.toml`: one code of Dynamo's graph-break registry.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct GraphBreak {
    pub gb_type: String,
}

/// Every generated table, parsed.
pub struct Generated {
    pub op_tags: Versioned<OpTags>,
    pub return_types: Versioned<Returns>,
    pub skipped_functions: Versioned<Refusal>,
    /// Standard-library and skip-listed third-party functions Dynamo refuses (`copy.copy`).
    pub skipped_library_functions: Versioned<Refusal>,
    /// Torch functions outside the public namespaces Dynamo refuses, under every spelling that
    /// reaches them (`torch._dynamo.testing.unsupported`, a re-exported C builtin). The largest
    /// table (~11k names): parsed on first use, so a run that never asks about a torch call
    /// outside the public table does not pay for it.
    pub skipped_torch_internals: LazyLock<Versioned<Refusal>>,
    pub unwrapped_modules: Versioned<Refusal>,
    /// Tensor methods Dynamo does not trace (`backward`, `requires_grad_`): measured breaking on a
    /// received and on a computed tensor.
    pub tensor_method_breaks: Versioned<Refusal>,
    /// Python builtins Dynamo has no handler for (`eval`, `exec`, `globals`): measured breaking
    /// with every sample argument set.
    pub builtin_breaks: Versioned<Refusal>,
    /// Torch context-manager classes Dynamo refuses to enter when the instance is a frame input
    /// (`torch.no_grad()` built by the caller): measured passing each in.
    pub input_context_managers: Versioned<Refusal>,
    /// Torch context-manager classes whose instance, used as a decorator, calls the function it
    /// wraps (`torch.no_grad()(fn)(x)` runs `fn(x)`): measured tracing into the wrapped function.
    pub decorator_context_managers: Versioned<Refusal>,
    /// Torch context managers that go wrong built before a graph break and entered after it.
    pub crossing_context_managers: Versioned<CrossingOutcome>,
    /// Tensor attributes whose store Dynamo refuses (`Tensor.requires_grad`).
    pub tensor_attribute_stores: Versioned<Refusal>,
    /// Reads of a tensor's value into Python (`Tensor.item`, `int`) under each Dynamo setting.
    pub scalar_reads: Versioned<ScalarRead>,
    /// Where torch's public ops take Python ints (`torch.zeros(size)`, `Tensor.topk(k)`).
    pub int_parameters: Versioned<IntParameters>,
    /// Tensor methods whose annotation on the newest torch is a host value (`is_contiguous`).
    pub host_tensor_methods: NameSet,
    /// Tensor methods whose annotation on the newest torch is exactly a tensor (`uniform_`).
    pub tensor_tensor_methods: NameSet,
    /// Tensor methods tagged `dynamic_output_shape` on every call (`nonzero`, `unique`).
    pub dynamic_shape_methods: NameSet,
    /// Attribute names of `torch.Tensor` on any generated torch (`dir(torch.Tensor)`): a value
    /// that receives a method outside this set is not a tensor.
    pub tensor_members: NameSet,
    /// Dynamo's markers (`disable`, `skip`, `disallow_in_graph`, ...) and what a call of a
    /// marked target gives.
    pub dynamo_markers: Versioned<MarkerEffects>,
    torch_function_markers: Vec<String>,
    /// The last name segments of every marker in the table.
    marker_segments: NameSet,
    /// Graph-break type → its code on the newest torch whose registry has it.
    gb_codes: HashMap<String, String>,
    /// GB code → its graph-break type on the newest torch whose registry has it.
    gb_types: HashMap<String, String>,
}

impl Generated {
    pub fn load() -> Generated {
        let graph_breaks: Versioned<GraphBreak> = Versioned::parse(GRAPH_BREAKS, "graph_breaks");
        let dynamo_markers: Versioned<MarkerEffects> =
            Versioned::parse(DYNAMO_MARKERS, "dynamo_markers");
        let mut gb_codes = HashMap::new();
        let mut gb_types = HashMap::new();
        for code in graph_breaks.entries.keys() {
            if let Some(entry) = graph_breaks.latest(code) {
                gb_types.insert(code.clone(), entry.gb_type.clone());
                // One code per type in the registries generated so far; keep the lowest if not.
                let slot = gb_codes
                    .entry(entry.gb_type.clone())
                    .or_insert_with(|| code.clone());
                if code < slot {
                    slot.clone_from(code);
                }
            }
        }
        let return_types: Versioned<Returns> = Versioned::parse(RETURN_TYPES, "return_types");
        // Tensor methods whose latest annotated return satisfies `keep`.
        let tensor_methods_returning = |keep: fn(&Returns) -> bool| {
            return_types
                .entries
                .keys()
                .filter_map(|name| name.strip_prefix("Tensor."))
                .filter(|method| {
                    return_types
                        .latest(&format!("Tensor.{method}"))
                        .is_some_and(keep)
                })
                .map(str::to_owned)
                .collect()
        };
        let host_tensor_methods = tensor_methods_returning(|returns| !returns.is_tensor());
        let tensor_tensor_methods = tensor_methods_returning(|returns| returns.returns == "tensor");
        let op_tags: Versioned<OpTags> = Versioned::parse(OP_TAGS, "op_tags");
        let dynamic_shape_methods = op_tags
            .entries
            .keys()
            .filter_map(|name| name.strip_prefix("Tensor."))
            .filter(|method| {
                op_tags
                    .latest(&format!("Tensor.{method}"))
                    .is_some_and(OpTags::dynamic_shape_on_every_call)
            })
            .map(str::to_owned)
            .collect();
        Generated {
            op_tags,
            dynamic_shape_methods,
            return_types,
            host_tensor_methods,
            tensor_tensor_methods,
            skipped_functions: Versioned::parse(SKIPPED_FUNCTIONS, "skipped_functions"),
            skipped_library_functions: Versioned::parse(
                SKIPPED_LIBRARY_FUNCTIONS,
                "skipped_library_functions",
            ),
            skipped_torch_internals: LazyLock::new(|| {
                Versioned::parse(SKIPPED_TORCH_INTERNALS, "skipped_torch_internals")
            }),
            unwrapped_modules: Versioned::parse(UNWRAPPED_MODULES, "unwrapped_modules"),
            tensor_method_breaks: Versioned::parse(TENSOR_METHOD_BREAKS, "tensor_method_breaks"),
            builtin_breaks: Versioned::parse(BUILTIN_BREAKS, "builtin_breaks"),
            input_context_managers: Versioned::parse(
                INPUT_CONTEXT_MANAGERS,
                "input_context_managers",
            ),
            decorator_context_managers: Versioned::parse(
                DECORATOR_CONTEXT_MANAGERS,
                "decorator_context_managers",
            ),
            crossing_context_managers: Versioned::parse(
                CROSSING_CONTEXT_MANAGERS,
                "crossing_context_managers",
            ),
            tensor_attribute_stores: Versioned::parse(
                TENSOR_ATTRIBUTE_STORES,
                "tensor_attribute_stores",
            ),
            scalar_reads: Versioned::parse(SCALAR_READS, "scalar_reads"),
            int_parameters: Versioned::parse(INT_PARAMETERS, "int_parameters"),
            tensor_members: Versioned::<Empty>::parse(TENSOR_MEMBERS, "tensor_members")
                .entries
                .into_keys()
                .collect(),
            torch_function_markers: {
                let mut names: Vec<String> = dynamo_markers
                    .entries
                    .iter()
                    .filter(|(_, ranges)| {
                        ranges
                            .iter()
                            .any(|(_, effects)| effects.torch_function.is_some())
                    })
                    .filter_map(|(name, _)| name.rsplit('.').next().map(str::to_owned))
                    .collect();
                names.sort();
                names.dedup();
                names
            },
            marker_segments: dynamo_markers
                .entries
                .keys()
                .filter_map(|name| name.rsplit('.').next().map(str::to_owned))
                .collect(),
            dynamo_markers,
            gb_codes,
            gb_types,
        }
    }

    /// The last name segments of the markers that mark torch functions on some generated torch
    /// (`disallow_in_graph`): a file whose text names none cannot mark one.
    pub fn torch_function_marker_names(&self) -> &[String] {
        &self.torch_function_markers
    }

    /// Whether some marker of the table has this last name segment (`disable`, `skip`): a call
    /// whose callee ends otherwise applies no marker (tested before resolving the callee).
    pub fn may_be_marker(&self, last_segment: &str) -> bool {
        self.marker_segments.contains(last_segment)
    }

    /// The graph-break type a call of a target marked by `marker` (a qualified name) gives in
    /// compiled code, with the oldest generated torch of the run of versions up to the newest
    /// where it breaks. It must break on the newest generated torch and, when the project
    /// declares a floor, on every generated torch at or above it; without a floor the newest
    /// decides (the message names the version it starts at: `Some` when newer than the oldest
    /// generated).
    pub fn marker_break(
        &self,
        marker: &str,
        target: MarkerTarget,
        floor: Option<TorchVersion>,
    ) -> Option<(&str, Option<TorchVersion>)> {
        let table = &self.dynamo_markers;
        let ranges = table.entries.get(marker)?;
        let on = |v: TorchVersion| {
            ranges
                .iter()
                .find(|(range, _)| range.contains(v))
                .and_then(|(_, effects)| effects.on(target))
        };
        let newest = *table.versions.last()?;
        let gb_type = on(newest)?;
        let mut since = newest;
        for version in table.versions.iter().rev() {
            if on(*version).is_none() {
                break;
            }
            since = *version;
        }
        if floor.is_some_and(|floor| {
            since > floor && table.versions.iter().any(|v| *v >= floor && *v < since)
        }) {
            return None;
        }
        let oldest = *table.versions.first()?;
        Some((gb_type, (since > oldest).then_some(since)))
    }

    /// The GB code Dynamo reports for this graph-break type (`"Attempted to call function marked
    /// as skipped"` → `GB0007` on torch 2.11), when its registry has it.
    pub fn gb_code(&self, gb_type: &str) -> Option<&str> {
        self.gb_codes.get(gb_type).map(String::as_str)
    }

    /// The graph-break type registered under a GB code (`GB0033` → "Data dependent operator").
    pub fn gb_type_of(&self, code: &str) -> Option<&str> {
        self.gb_types.get(code).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tables_parse_and_answer() {
        let tables = Generated::load();
        assert!(
            tables
                .op_tags
                .latest("torch.nonzero")
                .is_some_and(OpTags::dynamic_shape_on_every_call)
        );
        assert!(
            tables
                .op_tags
                .latest("torch.repeat_interleave")
                .is_some_and(|t| !t.dynamic_shape_on_every_call() && t.overloads == ["Tensor"])
        );
        assert!(
            tables
                .return_types
                .latest("torch.accelerator.is_available")
                .is_some_and(|r| !r.is_tensor())
        );
        assert!(
            tables
                .skipped_functions
                .on_every_from("torch.manual_seed", None)
                .is_some()
        );
        assert!(
            tables
                .skipped_torch_internals
                .on_every_from("torch._dynamo.testing.unsupported", None)
                .is_some()
        );
        assert!(tables.unwrapped_modules.latest("torch.nn.LSTM").is_some());
        assert!(tables.tensor_members.contains("copy_") && !tables.tensor_members.contains("copy"));
        assert_eq!(
            tables.gb_code("Attempted to call function marked as skipped"),
            Some("GB0007")
        );
    }

    #[test]
    fn marker_breaks_follow_the_floor() {
        let tables = Generated::load();
        let v = |text| TorchVersion::parse(text);
        // `disable` of a function breaks on every generated torch.
        let (_, since) = tables
            .marker_break("torch.compiler.disable", MarkerTarget::Function, None)
            .unwrap();
        assert_eq!(since, None);
        // Of a module class only from 2.5: named without a floor, dropped with a 2.2 floor.
        let (_, since) = tables
            .marker_break("torch.compiler.disable", MarkerTarget::ModuleClass, None)
            .unwrap();
        assert_eq!(since, v("2.5"));
        assert!(
            tables
                .marker_break(
                    "torch.compiler.disable",
                    MarkerTarget::ModuleClass,
                    v("2.2")
                )
                .is_none()
        );
        assert!(
            tables
                .marker_break(
                    "torch.compiler.disable",
                    MarkerTarget::ModuleClass,
                    v("2.8")
                )
                .is_some()
        );
        // `allow_in_graph` of a function is no break.
        assert!(
            tables
                .marker_break("torch._dynamo.allow_in_graph", MarkerTarget::Function, None)
                .is_none()
        );
        assert_eq!(tables.torch_function_marker_names(), ["disallow_in_graph"]);
    }
}
