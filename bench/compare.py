"""Measure this build and MkDocs-Material side by side in one run; print one table with each figure's goal.

Usage: .venv/bin/python bench/compare.py [--repeats N] [--no-mkdocs]
Exits 2 when a goal is missed, 1 when something could not be measured.

MkDocs-Material builds the same prose (content/*.md as one page, its template expressions left as text) from a
project made in a temporary folder; it is installed once into .cache/mkdocs-venv with pip (PyPI must be reachable;
otherwise its column reads "not installed" and the goals against it are skipped). Build times are medians of
interleaved runs: this build and MkDocs alternate, so both see the same load on a shared machine.

- warm build, the build's budget (at most half of MkDocs-Material's): a whole `build.py` process with .cache/ from
  the previous build; MkDocs: a second `mkdocs build` into the same folder;
- build after a data edit, the author's wait (at most MkDocs-Material's cold build): a whole `build.py` process on a
  data file whose Monte Carlo seed moved, with .cache/ as the build before the edit left it (the profiles' analysis
  runs again; the model pair's rates, which only the prose and the language_model settings change, are read back);
- cold build (at most MkDocs-Material's): an empty .cache/, no analysis cache and no rates; MkDocs: `mkdocs build`
  into an empty folder;
- for scale, without a goal: the import floor (`python -c "import numpy, jinja2, markdown_it, yaml"`) and the
  content-only rebuild (in one process, as --watch runs, the build after a prose edit; bench/build_and_watch.py
  times the whole loop from save to page against its budget);
- peak memory: bench/memory.py, the analysis at 10^5 and 10^7 Monte Carlo rounds;
- page: bytes raw and gzipped (for MkDocs, its index page with the CSS and JS it loads), DOM elements after load;
- TBT: Chromium's long tasks during load under 4x CPU throttling (CDP Emulation.setCPUThrottlingRate), each
  counting what it ran over 50 ms, as Lighthouse's Total Blocking Time does;
- layout shift: bench/layout_shift.py, stepping every frame of every round at a phone and a laptop width.

Every timed process keeps Python's default bytecode cache, as on a reader's or author's machine
(build_and_watch.timed).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import browserkit  # noqa: E402
import layout_shift  # noqa: E402
import memory  # noqa: E402
from budgets import BUDGETS  # noqa: E402
from build_and_watch import FLOOR, timed  # noqa: E402

MKDOCS_VENV = ROOT / ".cache" / "mkdocs-venv"
GOALS = {n: BUDGETS[n] for n in ("warm_vs_mkdocs", "cold_vs_mkdocs", "gzip_vs_mkdocs", "tbt_ms", "peak_mb")}

# Builds with .cache/ pointed at a folder of the caller's choice, so cold and warm runs never touch the checkout's.
BUILD = """
import pathlib, sys
sys.path.insert(0, {root!r})
from speculative import checkout
import build
checkout.CACHE = pathlib.Path(sys.argv[1])
sys.exit(build.main(["--out", sys.argv[2], *(["--data", sys.argv[3]] if len(sys.argv) > 3 else [])]))
"""

# One process, as --watch: build once, then time each rebuild after appending a sentence to one prose file.
CONTENT = """
import pathlib, shutil, sys, time
sys.path.insert(0, {root!r})
from speculative import checkout
from speculative.commands import build as build_command
work = pathlib.Path(sys.argv[1])
checkout.CACHE = work / ".cache"
args = checkout.Paths(work / "data/profiles.v1.json", work / "content", work / "templates", work / "site")
build_command.build_once(args)
page = sorted((work / "content").glob("*.md"))[0]
text = page.read_text()
times = []
for i in range({edits}):
    page.write_text(text + f"\\n\\nAn edit, number {{i}}.\\n")
    start = time.perf_counter()
    build_command.build_once(args)
    times.append(time.perf_counter() - start)
print(sorted(times)[len(times) // 2])
"""


def our_build(cache: Path, out: Path, data: Path | None = None) -> float:
    return timed([sys.executable, "-c", BUILD.format(root=str(ROOT)), str(cache), str(out), *([str(data)] if data else [])])


def edited(work: Path, i: int) -> Path:
    """Returns a copy of the data file with its Monte Carlo seed moved by i + 1: an author's edit to the profiles'
    analysis that leaves the prose and the language_model settings, so the model pair's cached rates, as they were."""
    raw = json.loads((ROOT / "data" / "profiles.v1.json").read_text(encoding="utf-8"))
    raw["monte_carlo"]["seed"] = (raw["monte_carlo"]["seed"] + i + 1) % 2**32
    (work / f"edited-{i}.json").write_text(json.dumps(raw), encoding="utf-8")
    return work / f"edited-{i}.json"


def content_rebuild(edits: int = 9) -> float:
    """Returns the median seconds of a rebuild after a prose edit, in one process with the analysis cached."""
    work = Path(tempfile.mkdtemp())
    try:
        for name in ("data", "content", "templates"):
            shutil.copytree(ROOT / name, work / name)
        out = subprocess.run([sys.executable, "-c", CONTENT.format(root=str(ROOT), edits=edits), str(work)],
                             check=True, capture_output=True, text=True)
        return float(out.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- MkDocs-Material on the same prose --------------------------------------------------------------------------

def mkdocs_bin() -> Path | None:
    """Returns the mkdocs command in .cache/mkdocs-venv, installing MkDocs-Material there first if needed."""
    exe = MKDOCS_VENV / "bin" / "mkdocs"
    if exe.exists():
        return exe
    try:
        subprocess.run([sys.executable, "-m", "venv", str(MKDOCS_VENV)], check=True, capture_output=True)
        subprocess.run([str(MKDOCS_VENV / "bin" / "python"), "-m", "pip", "install", "-q", "mkdocs-material"],
                       check=True, capture_output=True, timeout=600)
    except (subprocess.SubprocessError, OSError) as err:
        print(f"MkDocs-Material could not be installed ({err}); its column is skipped", file=sys.stderr)
        return None
    return exe if exe.exists() else None


def mkdocs_project(folder: Path) -> Path:
    """Returns a MkDocs-Material project in folder whose one page holds every section of content/*.md, in order,
    as this build's one page does (front matter dropped, each title a heading)."""
    docs = folder / "docs"
    docs.mkdir(parents=True)
    parts = []
    for page in sorted((ROOT / "content").glob("*.md")):
        front, body = re.match(r"(?s)^---\n(.*?)\n---\n(.*)$", page.read_text(encoding="utf-8")).groups()
        title = re.search(r"^title:\s*(.+)$", front, re.M)
        parts.append(f"## {title.group(1).strip() if title else page.stem}\n\n{body}")
    (docs / "index.md").write_text("# Speculative decoding, explained\n\n" + "\n\n".join(parts), encoding="utf-8")
    config = {"site_name": "Speculative decoding, explained", "theme": {"name": "material"}}
    (folder / "mkdocs.yml").write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    return folder


def mkdocs_build(exe: Path, project: Path, out: Path) -> float:
    return timed([str(exe), "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(out)], cwd=project)


def mkdocs_page_bytes(site: Path) -> tuple[int, int]:
    """Returns the raw and gzipped bytes of MkDocs' index page with the local CSS and JS it links."""
    html = (site / "index.html").read_text(encoding="utf-8")
    assets = re.findall(r'(?:href|src)="([^"]+\.(?:css|js))"', html)
    blobs = [html.encode()] + [(site / a).read_bytes() for a in assets if (site / a).is_file()]
    return sum(len(b) for b in blobs), sum(len(gzip.compress(b, 9, mtime=0)) for b in blobs)


# --- the page in Chromium: DOM after load, and long tasks under 4x CPU throttling -------------------------------

LONG_TASKS_JS = """() => {
  window.__long = [];
  new PerformanceObserver(l => { for (const e of l.getEntries()) window.__long.push(e.duration); })
    .observe({type: 'longtask', buffered: true});
}"""

# Resolves once the main thread has been idle for one second: the load's tasks, and any it scheduled, are done.
QUIET_JS = """() => new Promise(done => {
  let last = performance.now();
  new PerformanceObserver(() => { last = performance.now(); }).observe({type: 'longtask'});
  const check = () => performance.now() - last > 1000 ? done() : setTimeout(check, 100);
  check();
})"""


def page_figures(browser, path: Path, throttle: float = 4) -> dict[str, float]:
    """Returns the DOM elements after load, and the blocking time (ms over 50 of each long task) under throttling."""
    context = browser.new_context(viewport={"width": 412, "height": 823})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    page.add_init_script("(" + LONG_TASKS_JS + ")()")
    page.goto(path.as_uri(), wait_until="load")
    page.evaluate(QUIET_JS)
    tasks = page.evaluate("window.__long")
    dom = page.evaluate("document.getElementsByTagName('*').length")
    context.close()
    return {"dom": dom, "tbt_ms": sum(max(0.0, t - 50) for t in tasks), "long_tasks": len(tasks)}


def browser_figures(pages: dict[str, Path], loads: int) -> dict[str, dict[str, float]]:
    """Returns each page's DOM count and median TBT over `loads` throttled loads."""
    from playwright.sync_api import sync_playwright
    out = {}
    with sync_playwright() as pw:
        browser = browserkit.launch(pw)
        for name, page in pages.items():
            runs = [page_figures(browser, page) for _ in range(loads)]
            out[name] = {"dom": runs[0]["dom"], "tbt_ms": statistics.median(r["tbt_ms"] for r in runs)}
        browser.close()
    return out


# --- one run, one table ------------------------------------------------------------------------------------------

def build_times(work: Path, exe: Path | None, repeats: int) -> dict[str, float]:
    """Returns median seconds of the import floor, our cold and warm builds and MkDocs', run interleaved."""
    warm = work / "warm-cache"
    our_build(warm, work / "warm-site")  # primes the cache the warm runs find
    project = mkdocs_project(work / "mkdocs") if exe else None
    our_build(work / "edit-cache", work / "edit-site")  # the analysis and the rates of the file before the edits
    runs: dict[str, list[float]] = {"floor": [], "cold": [], "edit": [], "warm": [], "mk_cold": [], "mk_warm": []}
    for i in range(repeats):
        runs["floor"].append(timed([sys.executable, "-c", FLOOR]))
        runs["cold"].append(our_build(work / f"cold-cache-{i}", work / f"cold-site-{i}"))
        runs["edit"].append(our_build(work / "edit-cache", work / "edit-site", edited(work, i)))
        runs["warm"].append(our_build(warm, work / "warm-site"))
        if project:
            runs["mk_cold"].append(mkdocs_build(exe, project, work / f"mk-site-{i}"))
            runs["mk_warm"].append(mkdocs_build(exe, project, work / f"mk-site-{i}"))
    return {name: statistics.median(times) for name, times in runs.items() if times}


def warm_build(repeats: int = 5) -> dict[str, float]:
    """Returns build_times in a folder of its own: this build's and MkDocs-Material's (absent if not installed)."""
    work = Path(tempfile.mkdtemp())
    try:
        return build_times(work, mkdocs_bin(), repeats)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(repeats: int, use_mkdocs: bool) -> dict:
    """Returns every figure of both builds."""
    exe = mkdocs_bin() if use_mkdocs else None
    work = Path(tempfile.mkdtemp())
    try:
        m: dict = {"times": build_times(work, exe, repeats), "content_s": content_rebuild(), "memory": memory.measure()}
        page = work / "warm-site" / "index.html"
        html = page.read_bytes()
        m["ours"] = {"raw": len(html), "gzip": len(gzip.compress(html, 9, mtime=0))}
        pages = {"ours": page}
        if exe:
            m["mk"] = dict(zip(("raw", "gzip"), mkdocs_page_bytes(work / "mk-site-0"), strict=True))
            pages["mk"] = work / "mk-site-0" / "index.html"
        for name, figures in browser_figures(pages, loads=5).items():
            m[name].update(figures)
        m["shift"] = layout_shift.measure(page)
        return m
    finally:
        shutil.rmtree(work, ignore_errors=True)


def ratio_goal(value: float, anchor: float | None, goal: float) -> tuple[str, bool | None]:
    """Returns "x.xx× MkDocs" and whether it is within goal, or a dash and None without the anchor."""
    return (f"{value / anchor:.2f}× MkDocs", value / anchor <= goal) if anchor else ("—", None)


def build_rows(m: dict) -> list[tuple[str, str, str, str, bool | None]]:
    """Returns the build rows: (figure, this build, MkDocs-Material, goal, met)."""
    t, g = m["times"], GOALS
    mk_cold, mk_warm = t.get("mk_cold"), t.get("mk_warm")
    warm_mk, warm_mk_ok = ratio_goal(t["warm"], mk_warm, g["warm_vs_mkdocs"])
    mem = m["memory"]
    return [
        ("warm build", f"{t['warm']:.2f} s = {t['warm'] / t['floor']:.2f}× floor, {warm_mk}", seconds(mk_warm),
         f"≤ {g['warm_vs_mkdocs']}× MkDocs", warm_mk_ok),
        ("import floor", f"{t['floor']:.2f} s", "—", "—", None),
        ("cold build (nothing cached)", f"{t['cold']:.2f} s = {t['cold'] / t['floor']:.2f}× floor, "
         f"{ratio_goal(t['cold'], mk_cold, 0)[0]}", seconds(mk_cold), f"≤ {g['cold_vs_mkdocs']}× MkDocs",
         ratio_goal(t['cold'], mk_cold, g['cold_vs_mkdocs'])[1]),
        ("build after a data edit (a new process; .cache/ as the last build left it)",
         f"{t['edit']:.2f} s, {ratio_goal(t['edit'], mk_cold, 0)[0]}", seconds(mk_cold),
         f"≤ {g['cold_vs_mkdocs']}× MkDocs' cold build", ratio_goal(t['edit'], mk_cold, g['cold_vs_mkdocs'])[1]),
        ("content-only rebuild (in process, as --watch)", f"{m['content_s'] * 1000:.0f} ms", "—", "—", None),
        ("peak memory, 10^5 Monte Carlo rounds", f"{mem['small_mb']:.0f} MB", "—", "—", None),
        ("peak memory, 10^7 Monte Carlo rounds", f"{mem['big_mb']:.0f} MB ({mem['small_s']:.1f} s → {mem['big_s']:.1f} s, "
         f"per added round {mem['linearity']:.2f}×)", "—", f"≤ {g['peak_mb']} MB, time linear",
         mem["big_mb"] <= g["peak_mb"] and mem["linearity"] <= memory.LINEAR),
    ]


def seconds(value: float | None) -> str:
    return f"{value:.2f} s" if value is not None else "not installed"


def page_rows(m: dict) -> list[tuple[str, str, str, str, bool | None]]:
    """Returns the page rows: bytes, DOM, TBT, layout shift and the frame's fit on one screen."""
    ours, mk, g = m["ours"], m.get("mk"), GOALS
    rows = [
        ("page, raw", f"{ours['raw'] / 1024:.1f} KB", f"{mk['raw'] / 1024:.1f} KB (html+css+js)" if mk else "—", "—", None),
        ("page, gzipped", f"{ours['gzip'] / 1024:.1f} KB" + (f" = {ours['gzip'] / mk['gzip']:.2f}× MkDocs" if mk else ""),
         f"{mk['gzip'] / 1024:.1f} KB" if mk else "—", f"≤ {g['gzip_vs_mkdocs']}× MkDocs",
         ours["gzip"] <= g["gzip_vs_mkdocs"] * mk["gzip"] if mk else None),
        ("DOM elements after load", f"{ours['dom']:,}", f"{mk['dom']:,}" if mk else "—", "reported, no budget", None),
        ("TBT, long tasks under 4× CPU throttling (median of 5 loads)", f"{ours['tbt_ms']:.0f} ms",
         f"{mk['tbt_ms']:.0f} ms" if mk else "—", f"≤ {g['tbt_ms']} ms", ours["tbt_ms"] <= g["tbt_ms"]),
    ]
    for (w, h), f in m["shift"].items():
        rows.append((f"largest layout shift stepping the player, {w}×{h}", f"{f['shift']:.3f} ({f['uneven']} of "
                     f"{f['rounds']} rounds change height)", "—", "reported, no budget (shifts after a click)", None))
        rows.append((f"controls, frame and caption, {w}×{h}", f"{f['span']:.0f} px at the tallest frame", "—",
                     "reported, no budget", None))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="interleaved build runs per figure (default 5)")
    parser.add_argument("--no-mkdocs", action="store_true", help="skip MkDocs-Material and the goals against it")
    args = parser.parse_args(argv)
    m = measure(args.repeats, not args.no_mkdocs)
    rows = build_rows(m) + page_rows(m)
    print("| figure | this build | MkDocs-Material | goal | met |\n|---|---|---|---|---|")
    for name, ours, mk, goal, met in rows:
        print(f"| {name} | {ours} | {mk} | {goal} | {'—' if met is None else 'yes' if met else '**no**'} |")
    return 2 if any(met is False for *_, met in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
