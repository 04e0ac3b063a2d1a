"""The analysis cache: the view reads back equal, anything foreign or damaged is computed again, and a build that
finds its key skips the analysis, never imports numpy, and writes the same bytes as one that computes it."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from speculative import cache, checkout, pipeline, view

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "profiles.v1.json"


def test_the_view_reads_back_equal(explained):
    trace, ctx = cache.compact_json(view.trace(explained)), view.context(explained)
    assert cache.unpack(cache.pack("k", trace, ctx), "k") == (trace, ctx)


@pytest.mark.parametrize("ctx", [{"a": (1, 2)}, {"a": {1: "x"}}])
def test_a_context_that_json_would_change_is_not_cached(ctx):
    with pytest.raises(TypeError):
        cache.pack("k", "{}", ctx)


GOOD = cache.pack("k", "[1]", {"a": ["b"]})


@pytest.mark.parametrize("blob", [
    b"", b"not json\n{}", GOOD.replace(b'"k"', b'"other"', 1), GOOD[:-3] + b"[2]}", GOOD.split(b"\n")[0],
    GOOD.replace(b"analysis-cache/2", b"analysis-cache/1"), b"\xff\xfe" + GOOD, GOOD.split(b"\n")[0] + b"\n" + b"[" * 100_000,
])
def test_another_keys_or_a_damaged_or_foreign_file_is_a_miss(blob):
    assert cache.unpack(blob, "k") is None
    assert cache.unpack(GOOD, "k") == ("[1]", {"a": ["b"]})


def test_the_key_follows_the_data_and_the_prose_and_is_the_same_for_equal_inputs(dataset):
    base = cache.key(dataset, ("a", "b"))
    assert cache.key(dataclasses.replace(dataset), ("a", "b")) == base
    assert cache.key(dataclasses.replace(dataset, walkthrough_seed=dataset.walkthrough_seed + 1), ("a", "b")) != base
    assert cache.key(dataset, ("a", "c")) != base and cache.key(dataset, ("ab",)) != base


def test_the_key_follows_every_module_of_the_package(dataset, monkeypatch):
    base = cache.key(dataset, ())
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: real(p) + (b"#" if p.name == "view.py" else b""))
    assert cache.key(dataset, ()) != base

# --- the build: a hit skips the analysis, and the bytes are the same either way -------------------------------

@pytest.fixture
def fresh_cache(tmp_path, monkeypatch) -> Path:
    """Points the build's .cache/ at an empty folder."""
    monkeypatch.setattr(checkout, "CACHE", tmp_path / ".cache")
    return tmp_path / ".cache" / "analysis"


def files() -> dict[str, bytes]:
    return pipeline.build_files(DATA, ROOT / "content", ROOT / "templates")


def test_a_hit_skips_the_analysis_and_writes_the_same_bytes(fresh_cache, monkeypatch):
    computed = files()
    assert len(list(fresh_cache.glob("*.json"))) == 1

    def refuse(*args):
        raise AssertionError("the analysis ran although the cache held it")
    monkeypatch.setattr(pipeline, "explain", refuse)
    assert files() == computed


def seeded(tmp_path: Path, seed: int) -> Path:
    """Returns a copy of the data file with the Monte Carlo seed moved by `seed`: other data, another analysis."""
    raw = json.loads(DATA.read_text())
    raw["monte_carlo"]["seed"] = (raw["monte_carlo"]["seed"] + seed) % 2**32
    (tmp_path / f"seed-{seed}.json").write_text(json.dumps(raw))
    return tmp_path / f"seed-{seed}.json"


def test_other_data_misses_the_cache_and_undoing_the_edit_hits_it(fresh_cache, tmp_path, monkeypatch):
    first = files()
    runs = []
    real = pipeline.explain
    monkeypatch.setattr(pipeline, "explain", lambda *args: runs.append(1) or real(*args))
    pipeline.build_files(seeded(tmp_path, 1), ROOT / "content", ROOT / "templates")
    assert runs == [1]
    assert files() == first and runs == [1], "back to the first data: its analysis is still kept"


def test_the_cache_keeps_the_most_recently_used_analyses(fresh_cache, tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "ANALYSES", 2)
    runs = []
    real = pipeline.explain
    monkeypatch.setattr(pipeline, "explain", lambda *args: runs.append(1) or real(*args))
    data = [seeded(tmp_path, i) for i in range(3)]

    def build(i: int) -> None:
        pipeline.build_files(data[i], ROOT / "content", ROOT / "templates")
    build(0), build(1), build(0)  # 0 used last: 1 is the least recently used
    assert len(runs) == 2
    build(2)
    assert len(list(fresh_cache.glob("*.json"))) == 2 and len(runs) == 3
    build(0)
    assert len(runs) == 3, "the analysis used lately was kept"
    build(1)
    assert len(runs) == 4, "the least recently used one went"


PROBE = """
import pathlib, sys
sys.path.insert(0, sys.argv[1])
from speculative import checkout, pipeline
import build
checkout.CACHE = pathlib.Path(sys.argv[2])
ran = []
real = pipeline.explain
pipeline.explain = lambda *args: ran.append(1) or real(*args)
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


def test_a_build_keeps_the_analysis_and_the_model_pairs_rates_alone_in_its_cache(fresh_cache):
    files()
    assert sorted(p.name for p in fresh_cache.parent.iterdir()) == ["analysis", "language"]  # no record of checks
    assert [p.suffix for p in fresh_cache.iterdir()] == [".json"]
    assert [p.suffix for p in (fresh_cache.parent / "language").iterdir()] == [".json"]


def test_a_profile_edit_reuses_the_model_pairs_rates_and_builds_the_page_an_uncached_build_does(fresh_cache, tmp_path,
                                                                                              monkeypatch):
    from speculative import language

    files()
    edited = seeded(tmp_path, 1)  # another Monte Carlo seed: the profiles' analysis, not the prose's model pair
    counted = []
    real = language.rates_of
    monkeypatch.setattr(language, "rates_of", lambda *args: counted.append(1) or real(*args))
    language.explain.cache_clear()
    reused = pipeline.build_files(edited, ROOT / "content", ROOT / "templates")
    assert counted == [], "the rates were counted again although only the profiles changed"
    for kept in fresh_cache.parent.rglob("*.json"):
        kept.unlink()
    language.explain.cache_clear()
    assert pipeline.build_files(edited, ROOT / "content", ROOT / "templates") == reused and counted == [1]


def test_an_edit_to_the_language_settings_counts_the_rates_again(fresh_cache, tmp_path, monkeypatch):
    from speculative import language

    files()
    raw = json.loads(DATA.read_text())
    raw.setdefault("language_model", {})["seed"] = 12345
    (tmp_path / "lm.json").write_text(json.dumps(raw))
    counted = []
    real = language.rates_of
    monkeypatch.setattr(language, "rates_of", lambda *args: counted.append(1) or real(*args))
    pipeline.build_files(tmp_path / "lm.json", ROOT / "content", ROOT / "templates")
    assert counted == [1] and len(list((fresh_cache.parent / "language").glob("*.json"))) == 2
