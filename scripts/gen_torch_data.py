"""Write the generated torch knowledge tables (rules/data/<table>.toml) from installed torches.

Runs every generator of `scripts/torch_data/gen_*.py` (see that package's docstring for the
interface) under each interpreter given, then merges the per-version results: an entry is written
with the torch range over which it holds with the same fields (`torch = ">=2.5"`,
`">=2.2,<2.8"`). Ranges are stated over the versions generated from: the oldest one is the lower
bound of what is known, a range that reaches the newest one is open above.

    python scripts/gen_torch_data.py --python /work/main/.venv/bin/python \\
        --python /work/venvs/torch-2.5/bin/python --python /work/venvs/torch-2.2/bin/python

Give every interpreter on each run: a table is rewritten from the versions of that run only
(`--only TABLE` limits which tables are rewritten, not which versions they keep). Stdlib + torch
only. `--emit` (internal) runs the generators in this interpreter and prints JSON.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import pkgutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "rules" / "data"


def generators(only: list[str] | None):
    import torch_data

    for module in pkgutil.iter_modules(torch_data.__path__):
        if module.name.startswith("gen_") and (not only or module.name[4:] in only):
            yield importlib.import_module(f"torch_data.{module.name}")


def emit(only: list[str] | None) -> None:
    """Run the generators here; print `{"torch": version, "tables": {table: {...}}}`."""
    sys.path.insert(0, str(HERE))
    from torch_data import torch_version

    tables = {}
    for generator in generators(only):
        tables[generator.TABLE] = {"header": generator.HEADER, "entries": generator.generate()}
    json.dump({"torch": torch_version(), "tables": tables}, sys.stdout)


def version_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:2])


def minor(text: str) -> str:
    return ".".join(text.split(".")[:2])


def ranges(held: list[bool], versions: list[str]) -> list[str]:
    """Contiguous runs of versions where the entry holds, as `>=a[,<b]` strings."""
    out = []
    start = None
    for i, holds in enumerate(held + [False]):
        if holds and start is None:
            start = i
        elif not holds and start is not None:
            text = f">={minor(versions[start])}"
            if i < len(versions):
                text += f",<{minor(versions[i])}"
            out.append(text)
            start = None
    return out


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def names_list(names: list[str]) -> str:
    if len(names) <= 3:
        return toml_value(names)
    return "[\n" + "".join(f"    {toml_value(n)},\n" for n in names) + "]"


def merge(results: list[dict]) -> dict[str, str]:
    """table -> TOML text."""
    results = sorted(results, key=lambda r: version_key(r["torch"]))
    versions = [r["torch"] for r in results]
    texts = {}
    tables = sorted({t for r in results for t in r["tables"]})
    for table in tables:
        header = next(r["tables"][table]["header"] for r in results if table in r["tables"])
        # (name, fields as JSON) -> which versions hold it
        held: dict[tuple[str, str], list[bool]] = {}
        for index, result in enumerate(results):
            for name, fields in result["tables"].get(table, {"entries": {}})["entries"].items():
                key = (name, json.dumps(fields, sort_keys=True))
                held.setdefault(key, [False] * len(results))[index] = True
        groups: dict[tuple[str, str], list[str]] = {}
        for (name, fields), flags in held.items():
            for spec in ranges(flags, versions):
                groups.setdefault((spec, fields), []).append(name)
        lines = [header, f"versions = {toml_value(versions)}", ""]
        for (spec, fields), names in sorted(groups.items()):
            lines.append("[[entries]]")
            lines.append(f"torch = {toml_value(spec)}")
            for field, value in sorted(json.loads(fields).items()):
                lines.append(f"{field} = {toml_value(value)}")
            lines.append(f"names = {names_list(sorted(names))}")
            lines.append("")
        texts[table] = "\n".join(lines)
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", help="an interpreter with torch (repeatable)")
    parser.add_argument("--only", action="append", help="generate only this table's generator")
    parser.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.emit:
        emit(args.only)
        return
    results = []
    for python in args.python or [sys.executable]:
        command = [python, str(pathlib.Path(__file__).resolve()), "--emit"]
        for only in args.only or []:
            command += ["--only", only]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{python}: generators failed:\n{done.stderr[-4000:]}")
        result = json.loads(done.stdout)
        print(f"{python}: torch {result['torch']}", file=sys.stderr)
        results.append(result)
    if len({minor(r["torch"]) for r in results}) != len(results):
        sys.exit("two interpreters have the same torch minor version")
    for table, text in merge(results).items():
        (OUT / f"{table}.toml").write_text(text)
        print(f"wrote rules/data/{table}.toml", file=sys.stderr)


if __name__ == "__main__":
    main()
