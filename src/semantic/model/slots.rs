//! Where the tensors a class keeps in `self.<attr>` and `self.<attr>["key"]` live, from every
//! assignment to that slot in the file: a slot every assignment fills with a host value (a tensor
//! built without `device=` — `torch.tensor(0)` —, host math on one; in-place updates such as
//! `+= n` keep it where it is) holds a host tensor, so reading it is no device sync. Complete only once the file is
//! walked (a read may come before the assignment), so rules ask through a `Requirement`.

use super::SemanticModel;
use crate::semantic::tensor::TensorKind;
use ruff_python_ast::Expr;
use rustc_hash::FxHashSet;

/// `(class, attr, key)`: `self.attr` (no key) or `self.attr["key"]` in a method of `class`.
pub type Slot = (String, String, Option<String>);

#[derive(Default)]
pub(crate) struct SlotPlaces {
    /// Slots some assignment fills with a host value.
    host: FxHashSet<Slot>,
    /// Slots some assignment fills with anything else (a device tensor, an unknown value).
    elsewhere: FxHashSet<Slot>,
    /// `(class, attr)` stored into under a key that is no string literal: every key is unknown.
    any_key: FxHashSet<(String, String)>,
}

impl<'a> SemanticModel<'a> {
    /// The slot `expr` reads: `self.attr` or `self.attr["key"]` inside a method.
    pub fn tensor_slot(&self, expr: &Expr) -> Option<Slot> {
        match expr {
            Expr::Subscript(subscript) => {
                let (class, attr) = self.self_attribute(&subscript.value)?;
                let Expr::StringLiteral(key) = &*subscript.slice else {
                    return None;
                };
                Some((class, attr, Some(key.value.to_str().to_owned())))
            }
            Expr::Attribute(_) => {
                let (class, attr) = self.self_attribute(expr)?;
                Some((class, attr, None))
            }
            _ => None,
        }
    }

    /// Does every assignment of the file to `slot` store a host value (and is there one)?
    /// Complete once the file is walked.
    pub fn slot_on_host(&self, slot: &Slot) -> bool {
        let places = &self.slot_places;
        places.host.contains(slot)
            && !places.elsewhere.contains(slot)
            && !(slot.2.is_some() && places.any_key.contains(&(slot.0.clone(), slot.1.clone())))
    }

    /// `target = value` (or `target op= value` when `augmented`): note where the slot's value lives.
    pub(crate) fn note_slot_assignment(&mut self, target: &Expr, value: &Expr, augmented: bool) {
        if let Expr::Subscript(subscript) = target
            && !matches!(&*subscript.slice, Expr::StringLiteral(_))
        {
            if let Some((class, attr)) = self.self_attribute(&subscript.value) {
                self.slot_places.any_key.insert((class, attr));
            }
            return;
        }
        let Some(slot) = self.tensor_slot(target) else {
            return;
        };
        if augmented {
            // An in-place op never moves a tensor (`t += n` keeps `t` where it is, whatever `n`
            // is), so the slot's plain stores decide. Only a device tensor added to a slot that
            // held a Python number would rebind it to the device.
            if self.tensor_kind(value) == TensorKind::Tensor && !self.is_on_host(value) {
                self.slot_places.elsewhere.insert(slot);
            }
            return;
        }
        // `self.state = {"offset": torch.tensor(0)}`: each literal key is a slot of its own.
        if let (Expr::Dict(dict), None) = (value, &slot.2) {
            for item in &dict.items {
                match &item.key {
                    Some(Expr::StringLiteral(key)) => {
                        let keyed = (
                            slot.0.clone(),
                            slot.1.clone(),
                            Some(key.value.to_str().to_owned()),
                        );
                        self.note_slot_value(keyed, &item.value);
                    }
                    _ => {
                        self.slot_places
                            .any_key
                            .insert((slot.0.clone(), slot.1.clone()));
                    }
                }
            }
            return;
        }
        self.note_slot_value(slot, value);
    }

    fn note_slot_value(&mut self, slot: Slot, value: &Expr) {
        let host = self.is_on_host(value) || self.tensor_kind(value) == TensorKind::NotTensor;
        if host {
            self.slot_places.host.insert(slot);
        } else {
            self.slot_places.elsewhere.insert(slot);
        }
    }
}
