//! Dynamo's markers applied in this file: `torch.compiler.disable`, `torch._dynamo.decorators.skip`,
//! `torch._dynamo.disallow_in_graph`, ... (the callables of `rules/data/dynamo_markers.toml`,
//! generated per torch version by measuring what a call of a marked target gives). A marker is
//! applied by decorator (`@disable def f`, `@disable class M`), by a call on a name
//! (`f = disable(f)`, `disable(M)`, `disallow_in_graph(torch.sub)`) or by wrapping at assignment
//! (`self.sub = disable(Block())`). Functions and classes get their `FunctionInfo` marked
//! (`disabled`, `marked_by`): linking and the rules see them like a decorated function. Marked
//! instances and torch functions are kept here for the rules to ask.
//!
//! Cost: for the value of expression and assignment statements, one set lookup of the callee's
//! last name (no allocation); only a callee named like a marker (`disable`, `skip`) is resolved
//! and looked up in the table. Decorators: one table lookup each. O(1) per statement. Rules ask with one hash lookup per `self.<attr>(...)` or torch call, and only when
//! the file applied such a marker.

use super::*;
use crate::config::TorchVersion;
use crate::semantic::data::TORCH;
use crate::semantic::generated::MarkerTarget;

/// A marker applied to a target, and what a call of the target gives.
#[derive(Clone, Debug)]
pub struct Marked {
    /// The marker's qualified name (`torch.compiler.disable`).
    pub marker: String,
    /// The graph-break type a call of the marked target gives (torch's registry wording).
    pub gb_type: String,
    /// The torch from which it breaks (up to the newest generated), when newer than the oldest
    /// generated one.
    pub since: Option<TorchVersion>,
    /// The marked function is registered as a forward (pre-)hook of the instance (its name).
    pub hook: Option<String>,
}

#[derive(Default)]
pub(crate) struct Markers {
    /// Project classes marked as a whole (`@disable class M`, `disable(M)`), by local qualified
    /// name: their `forward` is marked.
    classes: FxMap<String, Marked>,
    /// `self.<attr> = marker(Module(...))`, by (class, attr).
    instances: FxMap<(String, String), Marked>,
    /// Torch functions marked by a call (`disallow_in_graph(torch.sub)`), by qualified name.
    torch_functions: FxMap<String, Marked>,
    /// Project classes that register a marked forward (pre-)hook on themselves
    /// (`self.register_forward_hook(hook)` in a method), by local qualified name: every call of
    /// one of their instances runs the hook.
    hooked_classes: FxMap<String, Marked>,
}

impl SemanticModel<'_> {
    /// The marker `callee` names (a decorator's or a call's function), when Dynamo's markers table
    /// says a call of a `target` it marks breaks for this project's torch.
    pub(crate) fn marker_of(&self, callee: &Expr, target: MarkerTarget) -> Option<Marked> {
        let marker = self.qualified(callee)?;
        let (gb_type, since) = TORCH
            .generated
            .marker_break(&marker, target, self.torch_floor())?;
        Some(Marked {
            gb_type: gb_type.to_owned(),
            marker,
            since,
            hook: None,
        })
    }

    /// A class decorator that marks the class: remembered, so its `forward` is marked when
    /// entered.
    pub(crate) fn note_class_markers(&mut self, class: &ast::StmtClassDef, qual: &str) {
        for decorator in &class.decorator_list {
            let callee = match &decorator.expression {
                Expr::Call(call) => &*call.func,
                other => other,
            };
            if let Some(marked) = self.marker_of(callee, MarkerTarget::ModuleClass) {
                self.markers.classes.insert(qual.to_owned(), marked);
            }
        }
    }

    /// The class mark a method gets when it is `forward` of a marked class.
    pub(crate) fn class_mark_of_method(&self, class: Option<&str>, name: &str) -> Option<Marked> {
        if name != "forward" || self.markers.classes.is_empty() {
            return None;
        }
        self.markers.classes.get(class?).cloned()
    }

    /// An expression statement or an assignment whose value applies a marker to a name or a new
    /// instance: `f = disable(f)` / `disable(f)`, `disable(M)`, `disallow_in_graph(torch.sub)`,
    /// `self.sub = disable(Block())` (`target` is the assignment's target, if any).
    pub(crate) fn note_marker_application(&mut self, value: &Expr, target: Option<&Expr>) {
        let Expr::Call(call) = value else {
            return;
        };
        let Some(first) = call.arguments.args.first() else {
            return;
        };
        // Cheap test first: only a callee whose last name is a marker's can be one.
        let last = match &*call.func {
            Expr::Name(name) => name.id.as_str(),
            Expr::Attribute(attribute) => attribute.attr.id.as_str(),
            _ => return,
        };
        if matches!(last, "register_forward_hook" | "register_forward_pre_hook") {
            self.note_marked_forward_hook(call, first);
            return;
        }
        if !TORCH.generated.may_be_marker(last) {
            return;
        }
        match first {
            Expr::Name(name) => match self.lookup(name.id.as_str()) {
                Some(Binding::Def(qual)) => {
                    let qual = qual.clone();
                    let Some(marked) = self.marker_of(&call.func, MarkerTarget::Function) else {
                        return;
                    };
                    let frame_only = matches!(
                        call.arguments.find_keyword("recursive").map(|k| &k.value),
                        Some(Expr::BooleanLiteral(b)) if !b.value
                    );
                    if let Some(&idx) = self.summary.function_by_name.get(&qual) {
                        let info = &mut self.summary.functions[idx as usize];
                        if frame_only {
                            info.disabled_frame_only = true;
                        } else {
                            info.disabled = true;
                        }
                        info.marked_by = Some(marked);
                    }
                }
                Some(Binding::Class(qual)) => {
                    let qual = qual.clone();
                    let Some(marked) = self.marker_of(&call.func, MarkerTarget::ModuleClass) else {
                        return;
                    };
                    let forward = format!("{qual}.forward");
                    if let Some(&idx) = self.summary.function_by_name.get(&forward) {
                        let info = &mut self.summary.functions[idx as usize];
                        info.disabled = true;
                        info.marked_by = Some(marked.clone());
                    }
                    self.markers.classes.insert(qual, marked);
                }
                _ => self.note_torch_function_marker(call, first),
            },
            Expr::Call(_) => {
                // `self.<attr> = marker(Block(...))` in a method.
                let Some(Expr::Attribute(attribute)) = target else {
                    return;
                };
                let Some(class) = self.self_target_class(attribute) else {
                    return;
                };
                let Some(marked) = self.marker_of(&call.func, MarkerTarget::ModuleInstance) else {
                    return;
                };
                self.markers
                    .instances
                    .insert((class, attribute.attr.id.as_str().to_owned()), marked);
            }
            Expr::Attribute(_) => self.note_torch_function_marker(call, first),
            _ => {}
        }
    }

    /// `self.<attr>.register_forward_hook(hook)` (or `_pre_hook`) where `hook` is a marked
    /// function of this file (`@torch.compiler.disable def hook`) or marked in place
    /// (`disable(hook)`): a call of `self.<attr>` runs the hook, which Dynamo does not trace.
    /// `self.register_forward_hook(hook)` registers it on the class's own instances: a call of
    /// `self.<attr>` holding one (`self.sub = Sub()`) runs it too.
    fn note_marked_forward_hook(&mut self, call: &ast::ExprCall, hook: &Expr) {
        let Expr::Attribute(method) = &*call.func else {
            return;
        };
        // The instance the hook is registered on: `self.<attr>` (by class and attribute), or
        // `self` itself (by class).
        let (class, attr) = match &*method.value {
            Expr::Attribute(receiver) => {
                let Some(class) = self.self_target_class(receiver) else {
                    return;
                };
                (class, Some(receiver.attr.id.as_str().to_owned()))
            }
            Expr::Name(receiver) => {
                let Some(class) = self.self_class(receiver.id.as_str()) else {
                    return;
                };
                (class, None)
            }
            _ => return,
        };
        let (marker, name) = match hook {
            // Marked where it is defined: by the decorator's own spelling, or `marked_by`.
            Expr::Name(name) => {
                let Some(Binding::Def(qual)) = self.lookup(name.id.as_str()) else {
                    return;
                };
                let Some(&idx) = self.summary.function_by_name.get(qual) else {
                    return;
                };
                let info = &self.summary.functions[idx as usize];
                if !info.disabled {
                    return;
                }
                let marker = match &info.marked_by {
                    Some(marked) => marked.marker.clone(),
                    None => "torch.compiler.disable".to_owned(),
                };
                (marker, name.id.to_string())
            }
            Expr::Call(inner) => {
                let Some(marker) = self.qualified(&inner.func) else {
                    return;
                };
                let name = match inner.arguments.args.first() {
                    Some(Expr::Name(name)) => name.id.to_string(),
                    _ => "the hook".to_owned(),
                };
                (marker, name)
            }
            _ => return,
        };
        let Some((gb_type, since)) =
            TORCH
                .generated
                .marker_break(&marker, MarkerTarget::ForwardHook, self.torch_floor())
        else {
            return;
        };
        let marked = Marked {
            gb_type: gb_type.to_owned(),
            marker,
            since,
            hook: Some(name),
        };
        match attr {
            Some(attr) => self.markers.instances.insert((class, attr), marked),
            None => self.markers.hooked_classes.insert(class, marked),
        };
    }

    fn note_torch_function_marker(&mut self, call: &ast::ExprCall, first: &Expr) {
        let Some(name) = self.qualified(first) else {
            return;
        };
        if !name.starts_with("torch.") {
            return;
        }
        if let Some(marked) = self.marker_of(&call.func, MarkerTarget::TorchFunction) {
            self.markers.torch_functions.insert(name, marked);
        }
    }

    /// The class of the method we are in when `attribute` is `self.<attr>`.
    fn self_target_class(&self, attribute: &ast::ExprAttribute) -> Option<String> {
        let Expr::Name(base) = &*attribute.value else {
            return None;
        };
        self.self_class(base.id.as_str())
    }

    /// The class of the method we are in when `name` is its `self`.
    fn self_class(&self, name: &str) -> Option<String> {
        self.frames
            .iter()
            .rev()
            .find_map(|frame| match &frame.kind {
                FrameKind::Function {
                    self_name: Some(self_name),
                    class: Some(class),
                    ..
                } if self_name == name => Some(class.clone()),
                _ => None,
            })
    }

    /// The marker applied to the instance a `self.<attr>(...)` call calls, when this file wrapped
    /// it (`self.sub = disable(Block())`, earlier in the walk).
    pub fn marked_instance_call(&self, call: &ast::ExprCall) -> Option<&Marked> {
        if self.markers.instances.is_empty() && self.markers.hooked_classes.is_empty() {
            return None;
        }
        let Expr::Attribute(attribute) = &*call.func else {
            return None;
        };
        let class = self.self_target_class(attribute)?;
        let attr = attribute.attr.id.as_str();
        if let Some(marked) = self
            .markers
            .instances
            .get(&(class.clone(), attr.to_owned()))
        {
            return Some(marked);
        }
        // `self.sub = Sub()` where `Sub` registers a marked hook on itself.
        if self.markers.hooked_classes.is_empty() {
            return None;
        }
        match self.self_attribute_type(&class, attr)? {
            Sym::Local(built) => self.markers.hooked_classes.get(built),
            _ => None,
        }
    }

    /// The marker a torch function (qualified name) was marked with in this file
    /// (`disallow_in_graph(torch.sub)`).
    pub fn marked_torch_function(&self, name: &str) -> Option<&Marked> {
        if self.markers.torch_functions.is_empty() {
            return None;
        }
        self.markers.torch_functions.get(name)
    }

    /// Whether the file's text contains `text` (a marker's name).
    pub fn source_contains(&self, text: &str) -> bool {
        self.source.contains(text)
    }

    /// Whether the file's text names a marker that marks torch functions: calls of torch
    /// functions can then only be decided when the walk ends (the marker may come after them).
    pub fn may_mark_torch_functions(&self) -> bool {
        *self.marks_torch_functions.get_or_init(|| {
            TORCH
                .generated
                .torch_function_marker_names()
                .iter()
                .any(|name| self.source.contains(name.as_str()))
        })
    }
}
