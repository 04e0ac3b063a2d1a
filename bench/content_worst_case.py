"""Print the build time of the worst Markdown sections found, each at the section size limit: the inputs that
made markdown-it's smart quotes quadratic, and other pathological Markdown. Every one must build in under 2 s."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from speculative.sections import MAX_SECTION_CHARS  # noqa: E402

N = MAX_SECTION_CHARS
CASES = {
    '"\' pairs': "\"'" * (N // 2),
    "it's, one paragraph": "it's " * (N // 5),
    "quotes, 300 per paragraph": ("\"a' " * 75 + "\n\n") * (N // 302),
    "open brackets": "[" * N,
    "nested emphasis": "*a **a " * (N // 7),
    "nested quotes": "> " * (N // 2),
    "inline HTML": "<span>a</span>" * (N // 14),
    "backticks": "`a``" * (N // 4),
}


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build_seconds(body: str) -> tuple[float, float]:
    """Returns (wall, CPU) seconds of one full build with the shipped content plus one section holding body;
    CPU time is the fairer figure on a shared machine."""
    work = Path(tempfile.mkdtemp())
    try:
        for name in ("data", "content", "templates"):
            shutil.copytree(ROOT / name, work / name)
        (work / "content" / "99-worst.md").write_text("---\ntitle: Worst\norder: 99\nid: worst\n---\n" + body)
        start, cpu = time.perf_counter(), cpu_seconds()
        subprocess.run([sys.executable, str(ROOT / "build.py"), "--data", str(work / "data" / "profiles.v1.json"),
                        "--content", str(work / "content"), "--templates", str(work / "templates"),
                        "--out", str(work / "site")], check=False, capture_output=True)
        return time.perf_counter() - start, cpu_seconds() - cpu
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    wall, cpu = build_seconds("A plain sentence.")
    print(f"{'section of ' + format(N, ',') + ' characters':30} {'wall':>7} {'CPU':>7}")
    print(f"{'(a plain sentence)':30} {wall:6.2f}s {cpu:6.2f}s")
    worst = 0.0
    for name, body in CASES.items():
        wall, cpu = build_seconds(body)
        worst = max(worst, cpu)
        print(f"{name:30} {wall:6.2f}s {cpu:6.2f}s")
    return 0 if worst <= 2 else 2


if __name__ == "__main__":
    sys.exit(main())
