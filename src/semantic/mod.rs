//! The semantic model: what a file binds (imports, definitions), which guard conditions wrap code,
//! which expressions are tensors, and — after linking all files — which functions Dynamo will trace.

/// The JSON that `build.rs` made of the table `rules/data/<name>.toml` (the TOML stays the source
/// of truth; parsing it on every scan cost more than the scan's whole link step gained since).
macro_rules! rules_table {
    ($name:literal) => {
        include_str!(concat!(env!("OUT_DIR"), "/rules_data/", $name, ".json"))
    };
}

pub mod cond;
pub mod context;
pub mod data;
pub mod environment;
pub mod gates;
pub mod generated;
pub mod host_index;
pub mod link;
pub mod model;
pub mod options;
pub mod own_scope;
pub mod reach;
pub mod settings;
pub mod star_imports;
pub mod summary;
pub mod tensor;
pub mod tensor_params;
pub mod tensor_returns;
pub mod torch_hooks;
pub mod typeflow;

/// A name resolved as far as one file can resolve it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sym {
    /// A dotted name reached through an import (`torch.compiler.is_compiling`, `mypkg.utils.f`).
    /// Whether it belongs to the project is decided when linking.
    Dotted(String),
    /// A function or class defined in this file, by local qualified name (`Model.forward`, `helper`).
    Local(String),
    /// `self.<attr>` inside a method of the class with this local qualified name.
    SelfAttr { class: String, attr: String },
    /// `super().<attr>` inside a method of the class with this local qualified name.
    SuperAttr { class: String, attr: String },
    /// `method` called on an instance of `class` (`loss_fn = Loss()` then `loss_fn(x)`:
    /// `__call__`; `head.compute_loss(...)`), resolved to the class's method when linking.
    Instance { class: Box<Sym>, method: String },
    /// Every value of the module-level dispatch dict `dict` names (`return LOSS_MAPPING[kind]`).
    DictValues(Box<Sym>),
    /// A function used as a value, not called here (`model/references.rs`): resolves to project
    /// functions only (a `self.<attr>` to the methods and property getters of the class).
    FunctionRef(Box<Sym>),
}

impl Sym {
    /// The last dotted segment of the name (what a call site calls: `f` of `pkg.mod.f`).
    pub fn last_segment(&self) -> &str {
        let text = match self {
            Sym::Dotted(name) | Sym::Local(name) => name.as_str(),
            Sym::SelfAttr { attr, .. } | Sym::SuperAttr { attr, .. } => attr.as_str(),
            Sym::Instance { method, .. } => method.as_str(),
            Sym::DictValues(dict) | Sym::FunctionRef(dict) => return dict.last_segment(),
        };
        // `memrchr`: called for every call site of a tree at link (`semantic/settings.rs`).
        match memchr::memrchr(b'.', text.as_bytes()) {
            Some(dot) => &text[dot + 1..],
            None => text,
        }
    }
}
