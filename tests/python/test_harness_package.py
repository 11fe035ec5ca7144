"""The harness package's shape: its modules import each other without circles (record types below the logic
that uses them), each stays small, and it needs nothing beyond the standard library and torch."""

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "check" / "harness" / "graphbreak_harness"
MODULE_LINE_LIMIT = 500


def modules():
    return {path.stem: path for path in sorted(PACKAGE.glob("*.py"))}


def harness_imports(path):
    """The package modules one module imports (relative `from .x import` and absolute `graphbreak_harness.x`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 1:
                found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("graphbreak_harness."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("graphbreak_harness."):
                    found.add(alias.name.split(".")[1])
    return found


def import_graph():
    return {name: harness_imports(path) for name, path in modules().items()}


def find_cycle(graph):
    """One import circle as a list of modules, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return path[path.index(target):] + [target] if target in path else [node, target]
            if target not in state:
                cycle = visit(target, path + [target])
                if cycle:
                    return cycle
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [node])
            if cycle:
                return cycle
    return None


def test_the_cycle_finder_finds_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_package_imports_form_no_circle():
    graph = import_graph()
    assert set(graph) >= {"records", "run", "entry", "fork_server"}
    for name, targets in graph.items():
        assert targets <= set(graph), "%s imports a module the package lacks: %s" % (name, targets - set(graph))
    assert find_cycle(graph) is None, "import circle: %s" % " -> ".join(find_cycle(graph))


def test_records_sit_below_everything():
    graph = import_graph()
    assert graph["records"] == set()
    for name, targets in graph.items():
        if name not in ("records", "__init__"):
            assert "entry" not in targets, name


def test_the_fork_server_and_the_one_shot_run_share_one_entry():
    graph = import_graph()
    assert {"run", "fork_server"} <= graph["entry"]
    assert "run" in graph["fork_server"], "a forked child ends in the same run_command as `harness.py run`"


@pytest.mark.parametrize("name", sorted(modules()))
def test_each_module_is_small(name):
    lines = modules()[name].read_text().count("\n")
    assert lines <= MODULE_LINE_LIMIT, "%s.py has %d lines: split it by concern" % (name, lines)


@pytest.mark.parametrize("name", sorted(modules()))
def test_each_module_needs_only_the_standard_library_and_torch(name):
    allowed = set(sys.stdlib_module_names) | {"torch", "graphbreak_harness"}
    tree = ast.parse(modules()[name].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots = [node.module.split(".")[0]]
        else:
            continue
        for root in roots:
            assert root in allowed, "%s.py imports %s" % (name, root)


def test_every_module_imports_cleanly():
    import importlib

    for name in modules():
        if name != "__init__":
            importlib.import_module("graphbreak_harness." + name)
