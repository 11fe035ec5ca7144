//! A function that only `fullgraph=True` compiles reach (`Project::fullgraph_only`): from torch
//! 2.11 Dynamo captures `.item()`, `int()`, `float()` and `bool()` of a tensor there instead of
//! breaking (`rules/data/scalar_reads.toml`), so SY002 keeps only the sync at that floor, and says
//! which torches raise below it. A compile without `fullgraph` reaching the same function keeps the
//! break. corpus/rules/SY002/fullgraph_roots.py is proven under real Dynamo by
//! tests/python/test_scalar_reads_table.py.

mod common;

use common::{graphbreak, stdout, write};

const STEP: &str = "import torch\n\n\ndef peak(x):\n    return x * x.max().item()\n\n\ndef step(x):\n    return peak(x) + 1\n";

/// A package whose `steps.py` reads `.item()` in `peak`, compiled as `train_py` says.
fn tree(train_py: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pkg/__init__.py", "");
    write(dir.path(), "pkg/steps.py", STEP);
    write(dir.path(), "pkg/train.py", train_py);
    dir
}

fn sy002_line(text: &str) -> &str {
    text.lines()
        .find(|line| line.contains("SY002"))
        .unwrap_or_else(|| panic!("an SY002 finding: {text}"))
}

#[test]
fn only_fullgraph_compiles_capture_the_read_from_torch_2_11() {
    let dir = tree(
        "import torch\nfrom pkg.steps import step\n\ncompiled = torch.compile(step, fullgraph=True)\n",
    );
    let at_newest = stdout(&graphbreak(
        dir.path(),
        &["scan", ".", "--torch-version", "2.11"],
    ));
    let line = sy002_line(&at_newest);
    assert!(line.contains("pkg/steps.py:5:"), "{at_newest}");
    assert!(line.contains("no graph break"), "{line}");
    assert!(line.contains("fullgraph=True"), "{line}");
    let at_older = stdout(&graphbreak(
        dir.path(),
        &["scan", ".", "--torch-version", "2.5"],
    ));
    let line = sy002_line(&at_older);
    assert!(
        line.contains("the compile raises on torch 2.5, 2.8 and captures the read on torch 2.11"),
        "{line}"
    );
}

#[test]
fn a_compile_without_fullgraph_keeps_the_break() {
    let dir = tree(
        "import torch\nfrom pkg.steps import step, peak\n\nwhole = torch.compile(step, fullgraph=True)\nloose = torch.compile(peak)\n",
    );
    let text = stdout(&graphbreak(
        dir.path(),
        &["scan", ".", "--torch-version", "2.11"],
    ));
    let line = sy002_line(&text);
    assert!(
        line.contains("graph break under torch.compile, and a device sync"),
        "{line}"
    );
}
