use crate::rules::declare_rule;
use crate::scan::checker::{Checker, Finding};
use crate::semantic::model::ArgKinds;
use crate::semantic::summary::{Hazard, Requirement};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

declare_rule! {
    /// ## What it does
    /// Flags the use of a compiled function's parameter that breaks because of the kind of value
    /// the function's call site in the same file passes to it: iterating a builtin iterator or
    /// dict view passed in (`zip(...)`, `map(...)`, `enumerate(...)`, `iter(...)`, `d.items()`,
    /// `d.values()`), calling a value that is not callable there, a disabled function, or an
    /// `nn.Module` whose `__init__` never ran `Module.__init__`, using a constant in `with`,
    /// `sorted()` over a list of tensors, advancing or iterating a generator passed in (a
    /// generator expression, or a call of an undecorated generator function of the file), and
    /// entering a context manager the caller built (a torch class listed in
    /// `rules/data/input_context_managers.toml`, such as `torch.no_grad()`, an instance of a
    /// class of the file that defines `__enter__` or inherits it from one, or a call of a
    /// `@contextlib.contextmanager` function of the file).
    ///
    /// The call sites read are `torch.compile(fn, ...)(args)`, `opt = torch.compile(fn, ...)`
    /// at module level then `opt(args)`, and calls of an `@torch.compile` function.
    ///
    /// ## Why is this bad?
    /// Dynamo wraps a frame's inputs by their Python type. A builtin iterator or a dict view
    /// arriving as an input is an opaque object to it: `for`, comprehensions, `iter()`, `next()`,
    /// `list()` of it break (GB0156 "Unsupported method call" on torch 2.11; "call_method
    /// UserDefinedObjectVariable(zip) __iter__" on 2.5, "call_function BuiltinVariable(iter)" on
    /// 2.2). A constant in `with` is "Unsupported context manager" (GB0142); calling a disabled
    /// function is "Skip calling `torch.compiler.disable()`d function" (GB0098); calling a module
    /// whose `Module.__init__` never ran is "Uninitialized nn.Module" (GB0119, torch >= 2.5; an
    /// internal Dynamo error on 2.2); `sorted()` over tensors is "sort with non-constant keys"
    /// (GB0207). A generator arriving as an input cannot be advanced ("call_method on generator",
    /// GB0253; "Generator as graph argument is not supported" on 2.8, an opaque user object on 2.2
    /// and 2.5), though one built inside the compiled function is traced. A context manager built
    /// outside is an input Dynamo does not enter ("Unsupported context manager", GB0142): which
    /// torch classes it refuses is generated per torch version by
    /// `scripts/torch_data/gen_input_context_managers.py` (each class built, passed in and entered
    /// under `fullgraph=True`); `torch.autocast` is accepted and not listed. Measured with
    /// `backend="eager"` on torch 2.2, 2.5, 2.8 and 2.11. Several of these
    /// fail in eager too (a `zip` object or a constant called, `with 3:`): the call site is a bug.
    /// `d.keys()` is left out: torch 2.8 and 2.11 trace it as an input.
    ///
    /// ## Example
    /// ```python
    /// def pairs_sum(x, pairs):
    ///     return sum(a * b for a, b in pairs) + x
    ///
    /// torch.compile(pairs_sum)(x, zip(weights, scales))   # graph break at the generator
    /// ```
    ///
    /// ## Fix
    /// Pass a list or tuple (`list(zip(...))`, `list(d.items())`) instead of an iterator; pass a
    /// real context manager; call `super().__init__()` in the module's `__init__`; sort by a
    /// Python key (or with `torch.sort` on a stacked tensor); call a disabled function outside the
    /// compiled one; pass a list instead of a generator; build a context manager inside the
    /// compiled function (`with torch.no_grad():`).
    ///
    /// ## Torch versions
    /// Measured on torch 2.2, 2.5, 2.8 and 2.11 (tests/python/test_call_site_kind_proofs.py).
    pub struct CompiledCallArgumentKind {
        code: "BR030",
        name: "compiled-call-argument-kind",
        family: Break,
        scope: CompiledRegion,
        torch_versions: ">=2.2",
        fix_available: false,
        summary: "parameter used in a way Dynamo cannot trace for the value its compiled call site passes (an iterator, a generator, a constant, a context manager built outside, a disabled function, an uninitialized module)",
        hooks: { statement: check_statement, call: check_call },
    }
}

/// What a use of the parameter needs from its argument to break, and how the message says it.
struct Use {
    kinds: ArgKinds,
    what: &'static str,
    gb_type: &'static str,
    fix: &'static str,
}

const ITERATED: Use = Use {
    kinds: ArgKinds::BUILTIN_ITERATOR,
    what: "a builtin iterator or dict view (`zip(...)`, `map(...)`, `d.items()`, ...), and Dynamo cannot iterate one that arrives as an input",
    gb_type: "Unsupported method call",
    fix: "pass a list or tuple (`list(zip(...))`) instead",
};

const CALLED_NOT_CALLABLE: Use = Use {
    kinds: ArgKinds(ArgKinds::BUILTIN_ITERATOR.0 | ArgKinds::CONSTANT.0),
    what: "a value that is not callable (an iterator or a constant; eager raises TypeError too)",
    gb_type: "Unsupported function call",
    fix: "pass the function, not its result",
};

const CALLED_DISABLED: Use = Use {
    kinds: ArgKinds::DISABLED_FUNCTION,
    what: "a `torch.compiler.disable`d function, which Dynamo does not trace",
    gb_type: "Skip calling `torch.compiler.disable()`d function",
    fix: "call the disabled function outside the compiled one, or drop the `disable`",
};

const CALLED_UNINITIALIZED: Use = Use {
    kinds: ArgKinds::UNINITIALIZED_MODULE,
    what: "an `nn.Module` whose `__init__` never calls `super().__init__()`",
    gb_type: "Uninitialized nn.Module",
    fix: "call `super().__init__()` first in the module's `__init__`",
};

const WITH_CONSTANT: Use = Use {
    kinds: ArgKinds::CONSTANT,
    what: "a constant, which is not a context manager",
    gb_type: "Unsupported context manager",
    fix: "pass a context manager",
};

const ITERATED_GENERATOR: Use = Use {
    kinds: ArgKinds::GENERATOR,
    what: "a generator object, and Dynamo cannot advance a generator that arrives as an input",
    gb_type: "call_method on generator",
    fix: "pass a list (`list(gen)`), or build the generator inside the compiled function",
};

const WITH_INPUT_CONTEXT_MANAGER: Use = Use {
    kinds: ArgKinds::CONTEXT_MANAGER,
    what: "a context manager built outside the compiled function, which Dynamo does not enter when it arrives as an input",
    gb_type: "Unsupported context manager",
    fix: "build it inside the compiled function (`with torch.no_grad():`)",
};

const SORTED_TENSORS: Use = Use {
    kinds: ArgKinds::TENSOR_LIST,
    what: "a list of tensors, and `sorted()` compares tensors (data-dependent)",
    gb_type: "sort with non-constant keys",
    fix: "sort by a Python key, or stack and use `torch.sort`",
};

fn report(checker: &mut Checker<'_>, param: &Expr, range: ruff_text_size::TextRange, use_: &Use) {
    let Some((func, name)) = checker.semantic().unchanged_parameter(param) else {
        return;
    };
    let label = super::graph_break_label(use_.gb_type);
    let message = format!(
        "the compiled call site in this file passes `{name}` {}: the graph breaks here ({label}); {}",
        use_.what, use_.fix
    );
    let requirement = Requirement::CallSiteArgument {
        func,
        param: name.to_owned(),
        kinds: use_.kinds,
    };
    checker.report(
        &CompiledCallArgumentKind::META,
        Finding::new(range, message)
            .with_hazard(Hazard::GraphBreak)
            .requiring(requirement),
    );
}

fn check_statement(checker: &mut Checker<'_>, stmt: &Stmt) {
    if !checker.semantic().in_function() {
        return;
    }
    match stmt {
        Stmt::For(stmt_for) => {
            for use_ in [&ITERATED, &ITERATED_GENERATOR] {
                report(checker, &stmt_for.iter, stmt_for.iter.range(), use_);
            }
        }
        Stmt::With(with) => {
            for item in &with.items {
                for use_ in [&WITH_CONSTANT, &WITH_INPUT_CONTEXT_MANAGER] {
                    report(checker, &item.context_expr, item.context_expr.range(), use_);
                }
            }
        }
        Stmt::Return(ast::StmtReturn {
            value: Some(value), ..
        })
        | Stmt::Expr(ast::StmtExpr { value, .. }) => comprehensions(checker, value),
        Stmt::Assign(assign) => comprehensions(checker, &assign.value),
        _ => {}
    }
}

/// A comprehension the statement's value is (or holds as a tuple element) iterating a parameter.
fn comprehensions(checker: &mut Checker<'_>, value: &Expr) {
    let elements = match value {
        Expr::Tuple(tuple) => tuple.elts.as_slice(),
        other => std::slice::from_ref(other),
    };
    for element in elements {
        let generators = match element {
            Expr::ListComp(c) => &c.generators,
            Expr::SetComp(c) => &c.generators,
            Expr::DictComp(c) => &c.generators,
            Expr::Generator(c) => &c.generators,
            _ => continue,
        };
        if let Some(first) = generators.first() {
            for use_ in [&ITERATED, &ITERATED_GENERATOR] {
                report(checker, &first.iter, first.iter.range(), use_);
            }
        }
    }
}

fn check_call(checker: &mut Checker<'_>, call: &ast::ExprCall, _callee: Option<&str>) {
    if !checker.semantic().in_function() {
        return;
    }
    if checker.semantic().unchanged_parameter(&call.func).is_some() {
        for use_ in [
            &CALLED_NOT_CALLABLE,
            &CALLED_DISABLED,
            &CALLED_UNINITIALIZED,
        ] {
            report(checker, &call.func, call.range(), use_);
        }
        return;
    }
    // `gen.send(v)`: advancing a generator input.
    if let Expr::Attribute(attribute) = &*call.func
        && attribute.attr.id.as_str() == "send"
    {
        report(checker, &attribute.value, call.range(), &ITERATED_GENERATOR);
        return;
    }
    let semantic = checker.semantic();
    // `next(gen, default)`: the default does not change what is advanced.
    let first = match call.arguments.args.as_ref() {
        [arg] => arg,
        [arg, _] if semantic.is_builtin(&call.func, "next") => {
            report(checker, arg, call.range(), &ITERATED_GENERATOR);
            return;
        }
        _ => return,
    };
    let consumes = ["iter", "next", "list", "tuple", "sorted"]
        .iter()
        .any(|builtin| semantic.is_builtin(&call.func, builtin));
    // `sum(gen)` consumes a generator input too (measured); for builtin iterators it is not
    // claimed.
    if !consumes {
        if semantic.is_builtin(&call.func, "sum") {
            report(checker, first, call.range(), &ITERATED_GENERATOR);
        }
        return;
    }
    let sorted = semantic.is_builtin(&call.func, "sorted");
    report(checker, first, call.range(), &ITERATED);
    report(checker, first, call.range(), &ITERATED_GENERATOR);
    if sorted && call.arguments.keywords.is_empty() {
        report(checker, first, call.range(), &SORTED_TENSORS);
    }
}
