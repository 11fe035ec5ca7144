//! `--statistics`, `--output-format full` and `--output-format junit` on the real binary.
//! (SARIF and JUnit are also validated by real validators in tests/tooling/.)

mod common;

use std::path::PathBuf;

use common::{graphbreak, stdout};

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"demo\"\n").unwrap();
    std::fs::write(
        root.join("models.py"),
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n\tdef forward(self, x):\n\t\tif torch.isnan(x).any():\n\t\t\tx = torch.nan_to_num(x)\n\t\tn = x.sum().item()\n\t\tm = x.max().item()\n\t\treturn x * n * m  # <&>\"'\n",
    )
    .unwrap();
    (dir, root)
}

#[test]
fn statistics_count_findings_per_code_most_frequent_first() {
    let (_guard, root) = project();
    let output = graphbreak(&root, &["scan", "--statistics"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "2\tSY002\tdevice-to-host-read\n1\tBR001\ttensor-truthiness-branch\n"
    );
    let json = graphbreak(&root, &["scan", "--statistics", "--output-format", "json"]);
    let items: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        items,
        serde_json::json!([
            {"code": "SY002", "name": "device-to-host-read", "count": 2, "fixable": false},
            {"code": "BR001", "name": "tensor-truthiness-branch", "count": 1, "fixable": false},
        ])
    );
    // Nothing found: nothing to count, and success.
    let clean = graphbreak(&root, &["scan", "--statistics", "--select", "CR001"]);
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(stdout(&clean), "");
}

#[test]
fn full_format_shows_the_source_line_with_a_caret_under_the_range() {
    let (_guard, root) = project();
    let output = graphbreak(
        &root,
        &["scan", "--output-format", "full", "--select", "BR001"],
    );
    assert_eq!(output.status.code(), Some(1));
    // The flagged line is indented with tabs: the caret line keeps them so it lines up.
    let expected = "models.py:7:6: BR001 branch on a tensor value: Dynamo breaks the graph here (data-dependent jump); on an accelerator the host also waits for the device
  |
5 | class Net(nn.Module):
6 | \tdef forward(self, x):
7 | \t\tif torch.isnan(x).any():
  | \t\t   ^^^^^^^^^^^^^^^^^^^^ BR001
8 | \t\t\tx = torch.nan_to_num(x)
9 | \t\tn = x.sum().item()
  |
  = via models.Net.forward

Found 1 finding in 1 file scanned.
";
    assert_eq!(stdout(&output), expected);
}

#[test]
fn junit_has_one_failed_case_per_finding_and_escapes_xml() {
    let (_guard, root) = project();
    std::fs::write(
        root.join("odd.py"),
        "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()  # <&>\n",
    )
    .unwrap();
    let output = graphbreak(&root, &["scan", "--output-format", "junit"]);
    assert_eq!(output.status.code(), Some(1));
    let xml = stdout(&output);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"graphbreak\" tests=\"4\" failures=\"4\""), "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 4, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 4, "{xml}");
    assert_eq!(xml.matches("<testsuite ").count(), 2, "{xml}");
    // Backquotes pass through; nothing unescaped from a message breaks the markup.
    assert!(
        xml.contains("type=\"SY002\">models.py:9:7: SY002 `.item()`"),
        "{xml}"
    );

    let clean = graphbreak(
        &root,
        &["scan", "--output-format", "junit", "--select", "CR001"],
    );
    assert_eq!(clean.status.code(), Some(0));
    assert!(stdout(&clean).contains("<testcase name=\"No findings\" classname=\"graphbreak\"/>"));
}
