"""The package stands on its own: no module imports build.py or reaches above the package, the pure core never
imports the edge (the modules that touch the disk, argv, signals, the watcher and the server), and no module is
longer than a newcomer reads in one sitting."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from .conftest import ROOT

PACKAGE = ROOT / "speculative"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
EDGE = {"cli", "commands", "checkout", "pipeline", "publish", "watch", "serve", "__main__"}  # top-level names
MAX_LINES = 450


def dotted(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path) -> set[str]:
    """Returns every module the file imports, as absolute dotted names (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = dotted(path) if path.name == "__init__.py" else dotted(path).rpartition(".")[0]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
                if not base:
                    names.add("<above the package>")
                    continue
            prefix = ".".join(base) if node.level else ""
            module = ".".join(filter(None, [prefix, node.module or ""]))
            names.add(module)
            names |= {f"{module}.{a.name}" for a in node.names}  # `from . import view` imports speculative.view
    return names


def test_the_scan_sees_relative_imports_and_would_catch_build_py():
    found = imported(PACKAGE / "commands" / "build.py")
    assert {"speculative.pipeline", "speculative.publish", "speculative.watch"} <= found
    assert "build" in imported(ROOT / "tests" / "conftest.py")  # the tests may import the shim; the package may not


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_build_py_or_reaches_above_the_package(path):
    names = imported(path)
    assert "build" not in names and "<above the package>" not in names
    assert not any(n.split(".")[0] in ("tests", "bench", "scripts") for n in names)
    source = path.read_text(encoding="utf-8")
    assert "spec_from_file_location" not in source and "sys.path" not in source  # no loading of files by path


@pytest.mark.parametrize("path", [p for p in MODULES if dotted(p).split(".")[1:2] and dotted(p).split(".")[1] not in EDGE],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_core_never_imports_the_edge(path):
    edge = {n for n in imported(path) if n.startswith("speculative.") and n.split(".")[1] in EDGE}
    assert not edge, f"{path.name} imports {sorted(edge)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_over_450_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


@pytest.mark.slow  # a fresh Python process
def test_importing_every_module_loads_nothing_from_the_checkout_outside_the_package():
    import json

    names = [dotted(p) for p in MODULES if p.name != "__main__.py"]
    code = ("import importlib, json, sys\n"
            f"for name in {names!r}:\n    importlib.import_module(name)\n"
            "print(json.dumps({n: getattr(m, '__file__', None) for n, m in list(sys.modules.items())}))")
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout)
    assert set(names) <= set(loaded) and "build" not in loaded
    ours = {n: f for n, f in loaded.items() if f and f.startswith(f"{ROOT}/") and not f.startswith(f"{ROOT}/.venv/")}
    assert {n for n, f in ours.items() if not f.startswith(f"{PACKAGE}/")} == set()


def test_build_py_is_a_shim_for_the_one_command_line():
    import build
    from speculative import cli

    lines = [line for line in (ROOT / "build.py").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert build.main is cli.build_py and len(lines) <= 15
