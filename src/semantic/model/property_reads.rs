//! Property reads on collaborators: `self.kernel.width`, `dist.spread` run the getter of the
//! receiver's class (Dynamo inlines a `@property` getter like a call). The receiver's class is
//! known from `self.<attr> = Cls(...)` (or an annotated / defaulted constructor parameter stored
//! there), a local built by a constructor or by a project function returning an instance, or an
//! annotated parameter. Each read is a reference edge (`Sym::FunctionRef` of a dotted
//! `Sym::SelfAttr` or of a `Sym::Instance`) that linking resolves to property getters only
//! (`link/property_reads.rs`), over every override in the known class's subclasses.
//!
//! Cost: one O(1) check per attribute load (a `self.<attr>` test and a lookup of its type, or one
//! local lookup for a name receiver); an edge only where the receiver is a `self.<attr>` this file
//! typed or a typed local, deduplicated per function, target and path (`push_reference`).

use super::*;

impl<'a> SemanticModel<'a> {
    /// `self.<attr>.<name>` or `<local>.<name>` read (not called) in a function.
    pub(crate) fn record_collaborator_read(&mut self, attribute: &ast::ExprAttribute) {
        if !attribute.ctx.is_load()
            || self.callee_range == Some(attribute.range())
            || !self.in_function()
        {
            return;
        }
        let name = attribute.attr.id.as_str();
        // Dunder names are the object model's (`model/dunder.rs`); private names are rarely
        // properties and `__dict__`-style reads never are.
        if name.starts_with("__") {
            return;
        }
        let target = match &*attribute.value {
            // `self.kernel.width`, `self.attn.cache.size`: only where this file typed the first
            // hop (usually in `__init__`, walked first), or the class has a project base that may
            // have (`self.cache = Cache()` in the base's `setup()`); an untyped attribute's reads
            // would be edges resolving to nothing. Linking follows the later hops through the
            // classes stored along the chain, at most four (`stored_chain_classes`).
            value @ Expr::Attribute(_) => match self.resolve(value) {
                Some(Sym::SelfAttr { class, attr: chain })
                    if chain.matches('.').count() < 4
                        && (matches!(
                            self.self_attribute_type(&class, chain.split('.').next().unwrap_or("")),
                            Some(Sym::Local(_) | Sym::Dotted(_))
                        ) || self.has_project_base(&class)) =>
                {
                    Sym::SelfAttr {
                        class,
                        attr: format!("{chain}.{name}"),
                    }
                }
                _ => return,
            },
            value @ Expr::Name(receiver) => {
                if self
                    .method_context()
                    .is_some_and(|(me, _)| me == receiver.id.as_str())
                {
                    return;
                }
                match self.instance_class(value) {
                    Some(class) => Sym::Instance {
                        class: Box::new(class),
                        method: name.to_owned(),
                    },
                    None => return,
                }
            }
            _ => return,
        };
        self.push_reference(target, attribute.start());
    }

    /// `return Cls(...)` in a function: it hands back an instance of the project class `Cls`.
    pub(crate) fn note_returned_instance(&mut self, stmt: &Stmt) {
        let Stmt::Return(ret) = stmt else { return };
        let Some(Expr::Call(call)) = ret.value.as_deref() else {
            return;
        };
        let Some(func) = self.current_function() else {
            return;
        };
        let class = match self.resolve(&call.func) {
            Some(sym @ Sym::Local(_)) => sym,
            Some(Sym::Dotted(dotted)) if self.is_project_dotted(&dotted) => Sym::Dotted(dotted),
            _ => return,
        };
        let returned = &mut self.summary.functions[func as usize].returned_classes;
        if !returned.contains(&class) {
            returned.push(class);
        }
    }

    /// `def make(...) -> Cls`: the project class the annotation names.
    pub(super) fn annotated_return_class(&self, def: &ast::StmtFunctionDef) -> Option<Sym> {
        match self.annotation_class(def.returns.as_deref()?)? {
            sym @ Sym::Local(_) => Some(sym),
            Sym::Dotted(dotted) if self.is_project_dotted(&dotted) => Some(Sym::Dotted(dotted)),
            _ => None,
        }
    }

    /// A class of this file deriving from a project class (of this file or another module).
    fn has_project_base(&self, class: &str) -> bool {
        self.class_bases(class).iter().any(|base| match base {
            Sym::Local(_) => true,
            Sym::Dotted(dotted) => self.is_project_dotted(dotted),
            _ => false,
        })
    }
}
