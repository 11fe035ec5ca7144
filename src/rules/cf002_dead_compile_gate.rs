use crate::rules::declare_rule;
use crate::semantic::gates::{FieldReading, GateExpr, eval_gate};
use crate::semantic::link::Project;
use crate::semantic::summary::{Candidate, FileId, Hazard};

declare_rule! {
    /// ## What it does
    /// Flags a `torch.compile(...)` call whose guarding condition is False under the declared
    /// defaults of the configuration it reads, even with the compile switch itself turned on.
    /// The condition is read through locals (`compile_enabled = cfg.compile and not
    /// train.multi_scale`), `and` / `or` / `not`, and fields of configuration objects whose class
    /// is known — a parameter annotated with the class, or a local built by calling it (its own
    /// keyword arguments win over the defaults). Defaults come from the class body, its project
    /// base classes included: dataclass and attrs fields (`flag: bool = True`,
    /// `field(default=True)`, `attr.ib(default=True)`), pydantic fields (`Field(True)`), plain
    /// class attributes. The compile switch is any field or name containing `compile`; it is
    /// taken as True. Anything else (environment variables, device checks, calls) is unknown and
    /// never makes a gate dead.
    ///
    /// ## Why is this bad?
    /// With the shipped defaults, turning compile on does nothing: `torch.compile` is never
    /// reached, and at best a log line says so. In the investigation that motivated this rule, a
    /// library's `compile=True` was a silent no-op because the gate also required
    /// `not train_config.multi_scale`, and the pydantic config declared `multi_scale: bool = True`.
    ///
    /// ## Example
    /// ```python
    /// class TrainConfig(BaseModel):
    ///     multi_scale: bool = True
    ///
    /// def build(model, model_config: ModelConfig, train_config: TrainConfig):
    ///     compile_enabled = model_config.compile and not train_config.multi_scale
    ///     if compile_enabled:
    ///         model = torch.compile(model)
    /// ```
    ///
    /// ## Fix
    /// Make the defaults consistent (default `multi_scale` to False when compiling, or compile
    /// with `dynamic=True` so multi-scale inputs are allowed), or fail loudly when compile was
    /// asked for but the gate is closed.
    ///
    /// ## Torch versions
    /// All (a property of the project's configuration, not of torch).
    pub struct DeadCompileGate {
        code: "CF002",
        name: "dead-compile-gate",
        family: Config,
        scope: Anywhere,
        torch_versions: "all",
        fix_available: false,
        summary: "torch.compile is unreachable under the declared config defaults, even with compile switched on",
        hooks: { project: check_project },
    }
}

fn check_project(project: &Project<'_>, file: FileId) -> Vec<Candidate> {
    let summary = &project.files[file as usize];
    let lookup = |class: &crate::semantic::Sym, field: &str, text: &str| {
        let (class_name, path, default) = project.field_default(class, file, field)?;
        Some(FieldReading {
            text: text.to_owned(),
            class: class_name.to_owned(),
            field: field.to_owned(),
            default: default.default,
            path: path.to_path_buf(),
            location: default.location,
        })
    };
    let mut out = Vec::new();
    for gate in &summary.compile_gates {
        let condition = GateExpr::And(gate.tests.clone());
        let (value, readings) = eval_gate(&condition, &lookup);
        if value != Some(false) || readings.is_empty() {
            continue;
        }
        let why: Vec<String> = readings
            .iter()
            .map(|r| {
                format!(
                    "`{}` defaults to {} (`{}.{}` at {}:{})",
                    r.text,
                    if r.default { "True" } else { "False" },
                    r.class,
                    r.field,
                    super::file_name(&r.path),
                    r.location.row
                )
            })
            .collect();
        out.push(super::project_candidate(
            &DeadCompileGate::META,
            format!(
                "`torch.compile` is never reached with the declared defaults, even with compile switched on: {}",
                why.join(", ")
            ),
            (gate.call_location, gate.call_end_location),
            None,
            Vec::new(),
            Hazard::NoBreak,
        ));
    }
    out
}
