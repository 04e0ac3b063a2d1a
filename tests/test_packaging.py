"""pyproject.toml: the license it names is the LICENSE file, and the set-up installs what the commands need."""

from __future__ import annotations

import tomllib

from .conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_file_is_the_one_pyproject_names():
    project = PROJECT["project"]
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert license_text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in license_text


def test_the_command_line_is_installed_as_speculative():
    assert PROJECT["project"]["scripts"] == {"speculative": "speculative.cli:main"}


def test_the_set_up_installs_scipy_for_check_and_ruff_for_the_tests():
    assert any(d.startswith("scipy") for d in PROJECT["project"]["dependencies"])
    assert any(d.startswith("ruff") for d in PROJECT["project"]["optional-dependencies"]["test"])


def declared(requirement: str) -> str:
    """Returns a requirement's distribution name, normalised ("rjsmin>=1.2" -> "rjsmin")."""
    import re

    return re.split(r"[<>=!~; \[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


# cli.NEEDED still names tree_sitter and tree_sitter_javascript, which the build no longer imports and pyproject.toml
# no longer installs: a fresh set-up would refuse to build until cli.py (another session's file) drops them
def test_every_module_the_build_command_requires_is_installed_by_a_declared_dependency():
    from importlib.metadata import packages_distributions

    from speculative import cli

    dependencies = {declared(d) for d in PROJECT["project"]["dependencies"]}
    owners = packages_distributions()
    missing = [name for name in cli.NEEDED
               if not {d.lower().replace("_", "-") for d in owners.get(name, [name])} & dependencies]
    assert missing == []


def test_the_slow_marker_is_registered():
    markers = [m.split(":")[0] for m in PROJECT["tool"]["pytest"]["ini_options"]["markers"]]
    assert markers == ["slow", "browser", "validator", "shipped", "data_independent", "script_twin", "every_file",
                       "allow_page_errors"]


def test_coverage_traces_nothing_outside_the_measured_modules():
    """Under the README's test command (coverage on, xdist workers each running two nested Coverage objects), a test
    outside conftest.MEASURED runs with no tracer at all: a tracer left on costs the run about 40 CPU-seconds."""
    import sys

    assert sys.gettrace() is None
