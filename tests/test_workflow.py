"""The Pages workflow is valid for GitHub, builds before it tests (so a refused input stops it with the loader's
lines), publishes site/, and asks for least privilege."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import OVERFULL, ROOT, overfull

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
TEXT = WORKFLOW.read_text()
DOC = yaml.safe_load(TEXT)
JOBS = DOC["jobs"]
CHECKER = Path(sys.executable).parent / "check-jsonschema"


def check(path: Path) -> subprocess.CompletedProcess:
    """Returns check-jsonschema's result on `path` against its bundled GitHub workflow schema (works offline)."""
    return subprocess.run([str(CHECKER), "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_workflow_passes_github_workflow_schema():
    result = check(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("old, new, complaint", [
    ("      pages: write\n", "      pages: sudo\n", "sudo"),
    ("  build:\n    runs-on: ubuntu-latest\n", "  build:\n", "runs-on"),
    ("      - id: deployment\n        uses: actions/deploy-pages@v5\n", "      - id: deployment\n", "deployment"),
], ids=["unknown permission level", "job without runs-on", "step that neither runs nor uses"])
@pytest.mark.slow  # starts fresh Python processes: the full run only
def test_checker_rejects_broken_workflow(tmp_path, old, new, complaint):
    assert TEXT.count(old) == 1, "the mutation no longer applies to pages.yml; update it"
    broken = tmp_path / "pages.yml"
    broken.write_text(TEXT.replace(old, new))
    result = check(broken)
    assert result.returncode != 0
    assert complaint in result.stdout


MAIN_ONLY = "github.event_name != 'pull_request' && github.ref == 'refs/heads/main'"


def test_runs_on_push_to_main_on_every_pull_request_and_by_hand():
    on = DOC.get("on", DOC.get(True))  # PyYAML reads the bare key `on` as the boolean True
    assert on["push"]["branches"] == ["main"]
    assert "pull_request" in on and on["pull_request"] is None  # every pull request, to any branch
    assert "workflow_dispatch" in on


def test_only_main_uploads_and_deploys_while_every_run_tests_and_builds():
    steps = JOBS["build"]["steps"]
    gated = {s.get("uses", s.get("run", "")).split("@")[0]: s.get("if") for s in steps}
    assert gated["bash scripts/test.sh"] is None and gated["bash scripts/ci_build.sh"] is None
    assert gated["actions/configure-pages"] == gated["actions/upload-pages-artifact"] == MAIN_ONLY
    assert JOBS["deploy"]["if"] == MAIN_ONLY


def test_every_job_has_a_time_limit():
    assert {name: 0 < job["timeout-minutes"] <= 60 for name, job in JOBS.items()} == {name: True for name in JOBS}


def step_index(steps: list[dict], *, run: str | None = None, uses: str | None = None) -> int:
    """Returns the index of the one step that runs `run` or uses action `uses` (any version)."""
    found = [i for i, s in enumerate(steps)
             if (run is not None and s.get("run", "").strip() == run)
             or (uses is not None and s.get("uses", "").split("@")[0] == uses)]
    assert len(found) == 1, f"expected exactly one step with {run or uses}, found {len(found)}"
    return found[0]


def test_build_job_builds_then_tests_then_uploads_site():
    steps = JOBS["build"]["steps"]
    checkout = step_index(steps, uses="actions/checkout")
    python = step_index(steps, uses="actions/setup-python")
    test = step_index(steps, run="bash scripts/test.sh")
    build = step_index(steps, run="bash scripts/ci_build.sh")
    configure = step_index(steps, uses="actions/configure-pages")
    upload = step_index(steps, uses="actions/upload-pages-artifact")
    assert checkout < python < build < test < configure < upload
    assert str(steps[python]["with"]["python-version"]) == "3.11"
    assert steps[upload]["with"]["path"] == "site"
    assert JOBS["build"]["runs-on"] == "ubuntu-latest"


def test_leaves_chromium_path_unset_so_test_sh_finds_a_browser():
    scopes = [DOC, *JOBS.values(), *(s for job in JOBS.values() for s in job["steps"])]
    assert all("CHROMIUM_PATH" not in scope.get("env", {}) for scope in scopes)


def test_deploy_job_publishes_the_built_artifact():
    deploy = JOBS["deploy"]
    assert deploy["needs"] in ("build", ["build"])
    (step,) = deploy["steps"]
    assert step["uses"].split("@")[0] == "actions/deploy-pages"
    assert deploy["environment"] == {"name": "github-pages", "url": "${{ steps." + step["id"] + ".outputs.page_url }}"}


def test_permissions_are_least_privilege():
    assert DOC["permissions"] == {"contents": "read"}
    assert JOBS["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    for name, job in JOBS.items():
        if name != "deploy":
            # A job without its own permissions inherits the top level's read-only token.
            assert job.get("permissions", DOC["permissions"]) == {"contents": "read"}, name


def test_one_pages_deployment_at_a_time_without_cancelling_and_pull_requests_never_wait_for_it():
    assert JOBS["deploy"]["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert "concurrency" not in DOC and "concurrency" not in JOBS["build"]


def test_actions_are_pinned_to_a_major_version():
    used = [s["uses"] for job in JOBS.values() for s in job["steps"] if "uses" in s]
    assert sorted(used) == sorted(["actions/checkout@v6", "actions/setup-python@v6", "actions/configure-pages@v6",
                                   "actions/upload-pages-artifact@v5", "actions/deploy-pages@v5"])



def test_dependabot_keeps_the_actions_and_the_python_dependencies_current():
    config = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text(encoding="utf-8"))
    assert config["version"] == 2
    assert {u["package-ecosystem"] for u in config["updates"]} == {"github-actions", "pip"}
    assert all(u["directory"] == "/" and u["schedule"]["interval"] for u in config["updates"])


@pytest.mark.slow  # runs the build script, set-up included
def test_a_refused_build_ends_the_step_with_the_loaders_lines_and_names_them_in_the_job_summary(tmp_path):
    data = tmp_path / "profiles.v1.json"
    raw = overfull(json.loads((ROOT / "data" / "profiles.v1.json").read_text(encoding="utf-8")))
    data.write_text(json.dumps(raw, indent=2, ensure_ascii=False), encoding="utf-8")
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    done = subprocess.run(["bash", "scripts/ci_build.sh", "--data", str(data), "--out", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()
    assert last[-1].startswith("Fix the problem") and any(OVERFULL in line for line in last[-4:])
    said = summary.read_text(encoding="utf-8")
    assert said.startswith("## The page was not built") and f"{data}: line " in said and OVERFULL in said
    assert not (tmp_path / "site").exists()


@pytest.mark.slow
def test_a_good_build_writes_no_summary(tmp_path):
    summary = tmp_path / "summary.md"
    done = subprocess.run(["bash", "scripts/ci_build.sh", "--out", str(tmp_path / "site")], cwd=ROOT,
                          env={**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert not summary.exists() and (tmp_path / "site" / "index.html").is_file()
