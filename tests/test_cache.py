"""The analysis cache: values read back equal, anything foreign or damaged is refused, and a build that finds
its key skips the analysis, never imports numpy, and writes the same bytes as one that computes it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from speculative import analysis, cache, checkout, dataset, frames, lm_settings, pipeline, profiles, stats, view

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "profiles.v1.json"
TYPES = cache.dataclass_types([analysis, frames, dataset, stats, lm_settings])


# --- values: every type the analysis and the view hold reads back equal ---------------------------------------

def test_the_analysis_reads_back_equal(explained):
    explained = replace(explained, language=None)  # the model pair's counts are never cached: the view built from them is
    again = cache.decode(cache.canonical(explained), TYPES)
    assert again == explained and again is not explained
    assert type(again.results[0].frames[1]) is type(explained.results[0].frames[1])


def test_the_view_reads_back_equal_with_lists_and_key_order_kept(explained):
    ctx = view.context(explained)
    again = cache.unpack(cache.pack("k", {"context": ctx}), "k")["context"]
    assert again == ctx and list(again) == list(ctx)
    assert json.dumps(again) == json.dumps(ctx)  # lists stay lists, dicts keep their order


@pytest.mark.parametrize("value", [
    (1, (2, 3), [4, (5,)]), {"a": 1, "$b": 2}, {1: "x", (2, 3): None}, Fraction(-3, 8), [0.1, 1e300, -0.0, 2**70],
    {"$tuple": [1]}, "$tuple", True, None,
])
def test_values_keep_their_types(value):
    again = cache.decode(cache.canonical(value), {})
    assert again == value and repr(again) == repr(value)


@pytest.mark.parametrize("value, message", [
    ({1, 2}, "cannot cache a value of type builtins.set"),
    (np.float64(0.5), "cannot cache a value of type numpy.float64"),
    ((np.zeros(2),), "cannot cache a value of type numpy.ndarray"),
])
def test_encode_refuses_types_it_cannot_read_back(value, message):
    with pytest.raises(TypeError, match=message):
        cache.encode(value)


def test_encode_refuses_a_number_that_is_not_finite():
    with pytest.raises(ValueError):
        cache.canonical([float("nan")])


# --- a foreign or damaged file is refused, never trusted -----------------------------------------------------

def body(text: str) -> bytes:
    """Returns a cache file for key "k" whose value is the given JSON text, with a correct digest."""
    import hashlib
    header = {"format": cache.FORMAT, "key": "k", "sha256": hashlib.sha256(text.encode()).hexdigest()}
    return json.dumps(header).encode() + b"\n" + text.encode()


GOOD = cache.pack("k", {"a": (1, Fraction(1, 2))})


@pytest.mark.parametrize("blob, message", [
    (b"", "found no speculative-analysis-cache/1 header"),
    (b"\x00\xff garbage", "found no speculative-analysis-cache/1 header"),
    (GOOD.replace(b'"k"', b'"other"', 1), "found the analysis of other data, code or versions"),
    (GOOD[:-3], "found contents that do not match their digest"),
    (GOOD.replace(b"1/2", b"1/3"), "found contents that do not match their digest"),
    (GOOD.replace(cache.FORMAT.encode(), b"speculative-analysis-cache/0"), "found no speculative-analysis-cache/1 header"),
    (body("[1,"), "found JSON that does not parse"),
    (body("[NaN]"), "found NaN; expected finite numbers only"),
    (body('{"$pickle": "x"}'), "found an object with the key '$pickle'"),
    (body('{"$tuple": [1], "b": 2}'), "found an object with the key '$tuple'"),
    (body('{"$tuple": 3}'), "found a malformed $tuple object"),
    (body('{"$fraction": "1/0"}'), "found the fraction '1/0'"),
    (body('{"$dict": [[[1], 2]]}'), "found a dict key that cannot be a key"),
    (body('{"$dataclass": ["os:system", {}]}'), "found the type 'os:system'"),
    (body('{"$dataclass": ["speculative.dataset:MonteCarlo", {"rounds": 1}]}'),
     "found the fields ['rounds'] for speculative.dataset:MonteCarlo; expected ['rounds', 'seed']"),
    (body("[" * 100_000 + "]" * 100_000), "found JSON that does not parse"),
])
def test_a_foreign_or_damaged_file_is_stale(blob, message):
    with pytest.raises(cache.Stale, match=re.escape(message)):
        cache.unpack(blob, "k", TYPES)


def test_a_known_dataclass_reads_back_from_its_own_fields():
    blob = body('{"$dataclass": ["speculative.dataset:MonteCarlo", {"rounds": 1, "seed": {"$tuple": []}}]}')
    assert cache.unpack(blob, "k", TYPES) == dataset.MonteCarlo(rounds=1, seed=())


# --- the key ----------------------------------------------------------------------------------------------------

BASE = (b"data", {"a.py": b"x = 1", "b.py": b"y = 2"}, {"python": "3.11", "numpy": "2"})


@pytest.mark.parametrize("changed", [
    (b"date", BASE[1], BASE[2]),
    (BASE[0], {"a.py": b"x = 2", "b.py": b"y = 2"}, BASE[2]),
    (BASE[0], {"a.py": b"x = 1", "c.py": b"y = 2"}, BASE[2]),
    (BASE[0], {"a.py": b"x = 1", "b.py": b"y = 2", "c.py": b""}, BASE[2]),
    (BASE[0], {"a.py": b"x = 1b.py\0y = 2"}, BASE[2]),
    (BASE[0], BASE[1], {"python": "3.12", "numpy": "2"}),
    (BASE[0], BASE[1], {"python": "3.11", "numpy": "1"}),
])
def test_the_key_changes_with_data_sources_and_versions(changed):
    assert cache.key(*changed) != cache.key(*BASE)


def test_the_key_is_the_same_for_the_same_inputs_in_any_order():
    assert cache.key(BASE[0], dict(reversed(BASE[1].items())), BASE[2]) == cache.key(*BASE)


def test_equal_datasets_have_equal_bytes_and_other_data_other_bytes(dataset, data_file):
    import dataclasses
    again = profiles.load(str(data_file))
    assert cache.canonical(again) == cache.canonical(dataset)
    other = dataclasses.replace(dataset, walkthrough_seed=dataset.walkthrough_seed + 1)
    assert cache.canonical(other) != cache.canonical(dataset)


# --- the build: a hit skips the analysis, and the bytes are the same either way -------------------------------

@pytest.fixture
def fresh_cache(tmp_path, monkeypatch) -> Path:
    """Points the build's .cache/ at an empty folder."""
    monkeypatch.setattr(checkout, "CACHE", tmp_path / ".cache")
    return tmp_path / ".cache" / "analysis.json"


def files() -> dict[str, bytes]:
    return pipeline.build_files(DATA, ROOT / "content", ROOT / "templates")


def test_a_hit_skips_the_analysis_and_writes_the_same_bytes(fresh_cache, monkeypatch):
    computed = files()
    assert fresh_cache.is_file()

    def refuse(dataset, corpus):
        raise AssertionError("the analysis ran although the cache held it")
    monkeypatch.setattr(pipeline, "explain", refuse)
    assert files() == computed


def test_other_data_misses_the_cache(fresh_cache, tmp_path, monkeypatch):
    files()
    raw = json.loads(DATA.read_text())
    raw["monte_carlo"]["seed"] += 1
    (tmp_path / "other.json").write_text(json.dumps(raw))
    runs = []
    real = pipeline.explain
    monkeypatch.setattr(pipeline, "explain", lambda dataset, corpus: runs.append(1) or real(dataset, corpus))
    pipeline.build_files(tmp_path / "other.json", ROOT / "content", ROOT / "templates")
    assert runs == [1]


PROBE = """
import pathlib, sys
sys.path.insert(0, sys.argv[1])
from speculative import checkout, pipeline
import build
checkout.CACHE = pathlib.Path(sys.argv[2])
ran = []
real = pipeline.explain
pipeline.explain = lambda dataset, corpus: ran.append(1) or real(dataset, corpus)
code = build.main(["--out", sys.argv[3]])
print(code, "numpy" in sys.modules, bool(ran))
"""


def probe(tmp_path: Path) -> str:
    """Runs one build in a new process and returns its exit code, whether it imported numpy, and whether the
    analysis ran."""
    out = subprocess.run([sys.executable, "-c", PROBE, str(ROOT), str(tmp_path / ".cache"), str(tmp_path / "site")],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_build_that_hits_the_cache_never_imports_numpy(tmp_path):
    assert probe(tmp_path) == "0 True True"
    assert probe(tmp_path) == "0 False False"


# --- only the analysis is cached: every check of the templates and the markup runs in every build -------------

def test_a_build_caches_the_analysis_alone_and_checks_every_input_each_time(fresh_cache, tmp_path, monkeypatch):
    from speculative import page_checks, render
    from speculative.errors import Problems

    files()
    assert sorted(p.name for p in fresh_cache.parent.iterdir()) == ["analysis.json"]  # no record of passed checks
    calls = []
    real = page_checks.markup_problem
    monkeypatch.setattr(page_checks, "markup_problem", lambda *a: calls.append(a) or real(*a))
    files()
    assert len(calls) == len(render.COMPONENTS) + 1  # every figure's markup and the page's, checked again
    monkeypatch.undo()
    monkeypatch.setattr(checkout, "CACHE", fresh_cache.parent)
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates)
    lab = templates / "lab.html.j2"
    lab.write_text(lab.read_text(encoding="utf-8") + "\n<div>\n", encoding="utf-8")
    with pytest.raises(Problems) as refused:  # the analysis is a hit; the template's markup is checked all the same
        pipeline.build_files(DATA, ROOT / "content", templates)
    assert any("lab.html.j2" in line and "<div> with no </div>" in line for line in refused.value.lines)
