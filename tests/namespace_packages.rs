//! A directory without `__init__.py` inside a regular package is a PEP 420 namespace portion:
//! Python 3 imports `pkg/sub/mod.py` as `pkg.sub.mod`. Module names, root patterns and imports
//! follow that name (src/scan/discover.rs, `PackageCache`).

mod common;

use common::{graphbreak, stdout, write};

fn package_with_namespace_portion(dir: &std::path::Path) {
    write(dir, "pkg/__init__.py", "");
    // No pkg/sub/__init__.py; pkg/sub/inner/ is a regular package below it.
    write(
        dir,
        "pkg/sub/blocks.py",
        "\
import torch


def count(x):
    return int(x.sum().item())


class Block(torch.nn.Module):
    def forward(self, x):
        return x * count(x)
",
    );
    write(dir, "pkg/sub/inner/__init__.py", "");
    write(
        dir,
        "pkg/sub/inner/head.py",
        "\
import torch


class Head(torch.nn.Module):
    def forward(self, x):
        return x + 1
",
    );
    write(
        dir,
        "pkg/model.py",
        "\
import torch

from pkg.sub.blocks import Block


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x)
",
    );
    // A top-level directory without `__init__.py` and no package above it stays unnamed.
    write(dir, "scripts/run.py", "def main():\n    return 1\n");
}

#[test]
fn a_namespace_portion_inside_a_package_is_named_like_python_names_it() {
    let dir = tempfile::tempdir().unwrap();
    package_with_namespace_portion(dir.path());
    // The pattern names modules under the portion: it must match (exit 0), not fail with
    // suggestions (exit 2), and root Block's forward, which reaches `count`.
    let output = graphbreak(
        dir.path(),
        &["scan", "--show-roots", "--roots", "pkg.sub.**", "."],
    );
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("pkg.sub.blocks.Block.forward"), "{text}");
    // A regular package below the portion keeps the full dotted name.
    assert!(text.contains("pkg.sub.inner.head.Head.forward"), "{text}");
}

#[test]
fn imports_from_a_namespace_portion_resolve() {
    let dir = tempfile::tempdir().unwrap();
    package_with_namespace_portion(dir.path());
    // Rooted at Net only: the `.item()` in pkg/sub/blocks.py is reached through the import
    // `from pkg.sub.blocks import Block` and `self.block = Block()`.
    let output = graphbreak(dir.path(), &["scan", "--roots", "pkg.model.Net", "."]);
    let text = stdout(&output);
    assert!(text.contains("pkg/sub/blocks.py:5:"), "{text}");
    let why = graphbreak(
        dir.path(),
        &[
            "scan",
            "--roots",
            "pkg.model.Net",
            "--why",
            "pkg/sub/blocks.py:5",
            ".",
        ],
    );
    let text = stdout(&why);
    assert!(text.contains("pkg.model.Net.forward"), "{text}");
}

#[test]
fn a_directory_with_no_package_above_it_is_not_a_portion() {
    let dir = tempfile::tempdir().unwrap();
    package_with_namespace_portion(dir.path());
    let output = graphbreak(dir.path(), &["scan", "--roots", "scripts.run.main", "."]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let output = graphbreak(dir.path(), &["scan", "--roots", "run.main", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}
