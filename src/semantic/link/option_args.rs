//! Constructor options passed on as arguments: `topk(score, ratio, self.min_score)` in a method
//! of a class whose `min_score=None` option nothing in the tree sets gives the callee's
//! `min_score` parameter `None` when the options keep their defaults — the same reading the
//! option tier gives `if self.min_score is None:` in the method itself (`semantic/options.rs`).
//!
//! Joined over every traced call edge of the callee like the caller-context constants
//! (`context.rs`): a parameter takes a value only when each edge gives that value — a literal, a
//! default, the caller's own parameter already known, or an option read at its default. An edge
//! giving anything else (a run-time value, a user's argument to a root) leaves it unknown, and
//! a root's own parameters stay unknown (its caller is the user). Read only in the default region
//! (`Assumptions::param_value` with `at_defaults`), so a branch the option's default rules out
//! moves to the option tier, named by the option (`gated_by`), never out of the report.

use super::*;
use crate::semantic::options::GateOption;
use crate::semantic::summary::{CallArgs, FunctionInfo};

/// A parameter's value when the options keep their defaults, and the options it came from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OptionParam {
    pub value: ConstValue,
    pub origins: Vec<GateOption>,
}

/// Per function, the parameters whose value at the option defaults is known only through an
/// option passed as an argument (one hop, or on through callers' parameters).
pub(crate) type OptionParams = HashMap<FuncRef, HashMap<String, OptionParam>>;

/// Rounds of forwarding through callers' parameters (`f(self.opt)` → `g(opt)` → `h(opt)`).
const ROUNDS: usize = 3;

impl<'a> Project<'a> {
    /// The option parameters of every traced function (empty when the tree has no options or no
    /// call passes `self.<attr>`).
    pub(super) fn option_params(&self, cache: &mut CalleeCache<'a>) -> OptionParams {
        let mut known = OptionParams::default();
        if self.options.by_class.is_empty() {
            return known;
        }
        let passes_self_attr = self.in_region.iter().any(|&(file, func)| {
            self.files[file as usize].functions[func as usize]
                .calls
                .iter()
                .any(|call| call.args.as_ref().is_some_and(|a| !a.self_attrs.is_empty()))
        });
        if !passes_self_attr {
            return known;
        }
        for _ in 0..ROUNDS {
            let next = self.option_params_round(&known, cache);
            if next == known {
                break;
            }
            known = next;
        }
        known
    }

    fn option_params_round(
        &self,
        known: &OptionParams,
        cache: &mut CalleeCache<'a>,
    ) -> OptionParams {
        // `None` inside: the edges disagree, or one does not know.
        let mut joined: HashMap<FuncRef, HashMap<String, Option<OptionParam>>> = HashMap::default();
        for &caller in &self.in_region {
            let info = &self.files[caller.0 as usize].functions[caller.1 as usize];
            for call in &info.calls {
                let Some(args) = &call.args else { continue };
                // A call not made at the defaults passes nothing there.
                if !call.path.is_empty()
                    && self.eager_only_with(caller.0, caller.1, call.path.iter(), true)
                {
                    continue;
                }
                let callees = cache
                    .entry((caller.0, &call.sym))
                    .or_insert_with(|| self.call_targets(&call.sym, caller.0));
                for &callee in callees.iter() {
                    let callee_info = &self.files[callee.0 as usize].functions[callee.1 as usize];
                    if callee_info.const_params.is_empty() || self.root_funcs.contains(&callee) {
                        continue;
                    }
                    let params = joined.entry(callee).or_default();
                    for (name, position) in &callee_info.const_params {
                        let value = self.option_edge_value(
                            caller,
                            info,
                            args,
                            callee_info,
                            name,
                            *position,
                            known,
                        );
                        params
                            .entry(name.clone())
                            .and_modify(|agreed| {
                                *agreed = match (agreed.take(), &value) {
                                    (Some(mut a), Some(b)) if a.value.py_eq(&b.value) => {
                                        for origin in &b.origins {
                                            if !a.origins.contains(origin) {
                                                a.origins.push(origin.clone());
                                            }
                                        }
                                        Some(a)
                                    }
                                    _ => None,
                                }
                            })
                            .or_insert(value);
                    }
                }
            }
        }
        joined
            .into_iter()
            .map(|(callee, params)| {
                let params: HashMap<String, OptionParam> = params
                    .into_iter()
                    // Only values an option decides: the rest is `param_values`' (`context.rs`).
                    .filter_map(|(name, value)| {
                        Some((name, value.filter(|v| !v.origins.is_empty())?))
                    })
                    .collect();
                (callee, params)
            })
            .filter(|(_, params)| !params.is_empty())
            .collect()
    }

    /// What one call edge gives parameter `name` of `callee` at the option defaults.
    #[allow(clippy::too_many_arguments)]
    fn option_edge_value(
        &self,
        caller: FuncRef,
        caller_info: &FunctionInfo,
        args: &CallArgs,
        callee: &FunctionInfo,
        name: &str,
        position: Option<u32>,
        known: &OptionParams,
    ) -> Option<OptionParam> {
        let keyword = args.keywords.iter().position(|(k, _)| k == name);
        // `f(x, self.mode)` / `f(x, mode=self.mode)`: the option's value at its default.
        let self_attr = args.self_attrs.iter().find(|arg| match keyword {
            Some(_) => arg.keyword.as_deref() == Some(name),
            None => arg.position.is_some() && arg.position == position && args.star.is_none(),
        });
        if let Some(arg) = self_attr {
            let fact = self.option_fact(caller, &arg.attr)?;
            return Some(OptionParam {
                value: fact.value.clone(),
                origins: vec![fact.gate()],
            });
        }
        // The caller's own parameter whose value at the defaults an option decides.
        let variable = match keyword {
            Some(index) => args.keywords.get(index).and_then(|(_, v)| v.as_deref()),
            None => position
                .filter(|_| args.star.is_none())
                .and_then(|p| args.positional.get(p as usize))
                .and_then(|v| v.as_deref()),
        };
        if let Some(variable) = variable
            && let Some(passed) = known.get(&caller).and_then(|params| params.get(variable))
        {
            return Some(passed.clone());
        }
        // Anything else: what caller context knows (a literal, a default, a known parameter).
        let caller_vararg = caller_info.vararg.as_deref();
        let star_empty = match args.star.as_deref() {
            None => true,
            Some(spread) => {
                caller_vararg == Some(spread)
                    && (self.root_funcs.contains(&caller)
                        || self.vararg_lens.get(&caller).copied() == Some(0))
            }
        };
        let double_star_empty = match args.double_star.as_deref() {
            None => true,
            Some(spread) => {
                caller_info.kwarg.as_deref() == Some(spread)
                    && (self.root_funcs.contains(&caller)
                        || self
                            .kwargs_keys
                            .get(&caller)
                            .is_some_and(|keys| !keys.contains(name)))
            }
        };
        context::edge_value(
            args,
            callee,
            name,
            position,
            star_empty,
            double_star_empty,
            self.param_values.get(&caller),
        )
        .map(|value| OptionParam {
            value,
            origins: Vec::new(),
        })
    }

    /// The options behind parameter `name` of `func` at the defaults, if an option decides it.
    pub(crate) fn option_param(&self, func: FuncRef, name: &str) -> Option<&OptionParam> {
        self.option_params.get(&func)?.get(name)
    }
}
