"""The batching figure's script in Chromium (templates/js/roofline*.js): at each setting its speedup, the batch where
speculation stops paying and the numbers of its sentences are speculative/roofline.py's (exact fractions, worked here
from the dataset); its charts are roofline_charts.py's at any setting, and the build's own at the defaults; a broken
twin is caught; axe finds nothing in light and dark; the figure prints. Every expectation comes from the data file, so
the tests hold for any valid one."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from playwright.sync_api import expect

from speculative import roofline as rl
from speculative import roofline_charts as ch
from speculative import strings, text
from speculative.text import decimal_str

from .conftest import axe_violations, script_source
from .test_mutants import call_js, script_twin

W = strings.ROOFLINE
DEBUG = "window.__playerDebug = true"  # boot.js then gives the started figures as window.__player.figures
FIG = "[data-roofline]"
SHOWN = "() => window.__player.figures.roofline.shown"  # the floats the script's last render showed


# --- Python's side: speculative/roofline.py in exact fractions, and the figure's words --------------------------

def defaults(dataset) -> dict:
    return {"hardware": 0, "pair": 0, "profile": 0, "k": dataset.k, "m": 1, "batch_log2": 0}


def worked(dataset, s: dict) -> dict:
    """Returns what roofline.py makes of a setting: E, the speedup at its batch, where it stops paying, a plain step's
    and a round's time, the knee and the check's tokens."""
    rf = dataset.roofline
    hw, pair, b, k, m, n = rf.hardware[s["hardware"]], rf.pairs[s["pair"]], rf.bytes_per_parameter, s["k"], s["m"], 2 ** s["batch_log2"]
    e = rl.expected_tokens(dataset.target, dataset.profiles[s["profile"]].draft, k, m)
    return {"expected": e, "speedup": rl.speedup(e, pair, hw, b, n, k, m), "stop": rl.stops_paying(e, pair, hw, b, k, m),
            "plain": rl.plain_time(pair, hw, b, n), "round": rl.round_time(pair, hw, b, n, k, m), "knee": rl.knee(hw, b),
            "n": n, "check": n * rl.scored(k, m), "hw": hw, "pair": pair, "b": b}


def tokens(n: int) -> str:
    return text.fill(W["tokens_one" if n == 1 else "tokens_many"], {"n": ch.grouped(n)})


def sentences(dataset, s: dict) -> tuple[str, str]:
    """Returns the two sentences under the charts at a setting, from the exact values."""
    v, k = worked(dataset, s), s["k"]
    step = text.fill(W["step"], {
        "n": ch.grouped(v["n"]), "plain_tokens": tokens(v["n"]), "plain": ch.time_str(float(v["plain"])),
        "drafts": text.fill(W["passes_one" if k == 1 else "passes_many"], {"k": k}), "check_tokens": tokens(v["check"]),
        "round": ch.time_str(float(v["round"])), "e": decimal_str(v["expected"]), "value": ch.speedup_str(v["speedup"])})
    step += text.fill(W["flat" if v["check"] <= v["knee"] else "steep"], {"knee": ch.knee_str(v["knee"])})
    stop = (text.fill(W["stop_beyond"], {"n": ch.grouped(rl.MAX_BATCH)}) if v["stop"] is None else W["stop_never"]
            if v["stop"] == 1 else text.fill(W["stop_at"], {"n": ch.grouped(v["stop"])}))
    return step, stop


def shown(dataset, s: dict) -> str:
    """Returns the line naming the setting the charts are drawn for."""
    rf, k, m, n = dataset.roofline, s["k"], s["m"], 2 ** s["batch_log2"]
    return text.fill(W["shown"], {
        "hardware": rf.hardware[s["hardware"]].name, "pair": rf.pairs[s["pair"]].name,
        "profile": dataset.profiles[s["profile"]].name,
        "positions": text.fill(W["positions_one" if k == 1 else "positions_many"], {"k": k}),
        "candidates": text.fill(W["candidates_one" if m == 1 else "candidates_many"], {"m": m}),
        "batch": text.fill(W["batch_one" if n == 1 else "batch_many"], {"n": ch.grouped(n)})})


def charts(dataset, trace: dict, s: dict) -> tuple[str, str]:
    """Returns roofline_charts.py's two charts at a setting (its descriptions left empty: the words are checked apart)."""
    v, ax = worked(dataset, s), trace["roofline"]["axes"]
    hw, pair, b = v["hw"], v["pair"], v["b"]
    lines = {"target": lambda t: float(rl.pass_time(pair.target, Fraction(t), hw, b)),
             "draft": lambda t: float(rl.pass_time(pair.draft, Fraction(t), hw, b))}
    curve = [(n, float(rl.speedup(v["expected"], pair, hw, b, n, s["k"], s["m"]))) for n in ch.samples()]
    return (ch.pass_chart(ax, lines, float(v["knee"]), v["n"], v["check"], "", "", ""),
            ch.speedup_chart(ax, curve, v["n"], float(v["speedup"]), v["stop"], "", "", ""))


# A chart's marks, as (tag, class, every number in its attributes, text), in order: what two drawings of a chart
# must share. The frame (gridlines, axes, ticks) is the build's in both.
_MARK = re.compile(r'<(path|circle|text)((?:\s+[\w-]+="[^"]*")*)\s*/?>(?:([^<]*)</text>)?')


def marks(svg: str) -> list[tuple[str, str, list[float], str]]:
    body = svg.split('class="ch-m"', 1)[1].split("</g>", 1)[1]
    found = []
    for tag, attrs, label in _MARK.findall(body):
        cls = re.search(r'class="([^"]*)"', attrs)
        numbers = [float(x) for name, value in re.findall(r'([\w-]+)="([^"]*)"', attrs) if name != "class"
                   for x in re.findall(r"-?\d+(?:\.\d+)?", value)]
        found.append((tag, cls.group(1) if cls else "", numbers, label))
    return found


def same_marks(got: str, want: str, within: float = 0.1) -> bool:
    """Whether two drawings place the same marks at the same points, to the 0.1 the coordinates are written to."""
    a, b = marks(got), marks(want)
    return len(a) == len(b) and all(
        (x[0], x[1], x[3], len(x[2])) == (y[0], y[1], y[3], len(y[2]))
        and all(abs(p - q) <= within + 1e-9 for p, q in zip(x[2], y[2], strict=True)) for x, y in zip(a, b, strict=True))


def close(x: float, exact: Fraction) -> bool:
    return abs(x - float(exact)) <= 1e-9 * abs(float(exact))


def settings(dataset) -> list[tuple[str, str, dict]]:
    """Returns a walk through the controls, each moved in turn from where the last left it: (control's hook, its
    value, the whole setting after the move). Each ends where the data file gives it room to go."""
    rf, s, walk = dataset.roofline, defaults(dataset), []
    moves = [("batch", "batch_log2", 6), ("hardware", "hardware", len(rf.hardware) - 1), ("pair", "pair", len(rf.pairs) - 1),
             ("profile", "profile", len(dataset.profiles) - 1), ("k", "k", 1), ("m", "m", 2), ("batch", "batch_log2", 12),
             ("k", "k", dataset.k), ("m", "m", 4), ("batch", "batch_log2", 3), ("hardware", "hardware", 0)]
    for hook, key, value in moves:
        s = {**s, key: value}
        walk.append((hook, str(value), s))
    return walk


def move(fig, hook: str, value: str) -> None:
    control = fig.locator(f"[data-roofline-{hook}]")
    if control.evaluate("e => e.tagName") == "SELECT":
        control.select_option(value)
    else:
        control.fill(value)


def opened(pages, page_url):
    page = pages.open(page_url, DEBUG)
    page.wait_for_function("() => window.__player && window.__player.figures.roofline")
    return page


# --- the script against roofline.py -----------------------------------------------------------------------------

@pytest.mark.browser
def test_at_each_setting_the_script_shows_roofline_pys_numbers(pages, page_url, dataset, trace):
    """Each control moved in turn: the sentences and outputs are the build's words filled from the exact values; the
    script's own speedup and plain and round times are within 1e-9 of them, its stops-paying batch the same batch."""
    page = opened(pages, page_url)
    fig, rf = page.locator(FIG), trace["roofline"]
    for hook, value, s in [("", "", defaults(dataset)), *settings(dataset)]:
        if hook:
            move(fig, hook, value)
        step, stop = sentences(dataset, s)
        expect(fig.locator("[data-roofline-words]")).to_have_text(step)
        expect(fig.locator("[data-roofline-stop]")).to_have_text(stop)
        v, shown = worked(dataset, s), page.evaluate(SHOWN)
        assert shown["stop"] == v["stop"], s
        for key in ("speedup", "expected", "plain", "round"):
            assert close(shown[key], v[key]), (s, key, shown[key], v[key])
        expect(fig.locator("[data-roofline-profile-out]")).to_have_text(
            text.fill(W["profile_out"], {"e": decimal_str(v["expected"])}))
        expect(fig.locator("[data-roofline-batch-out]")).to_have_text(text.fill(W["batch_out"], {"n": ch.grouped(v["n"])}))
        expect(fig.locator("[data-roofline-hardware-out]")).to_have_text(rf["hardware"][s["hardware"]]["out"])
        expect(fig.locator("[data-roofline-pair-out]")).to_have_text(rf["pairs"][s["pair"]]["out"])
        expect(fig.locator("[data-roofline-k-out]")).to_have_text(text.fill(W["k_out"], {"k": s["k"]}))
        expect(fig.locator("[data-roofline-m]")).to_have_attribute("aria-valuetext", text.fill(W["m_out"], {"m": s["m"]}))


@pytest.mark.browser
def test_at_each_setting_the_scripts_charts_are_roofline_charts_pys(pages, page_url, dataset, trace):
    """The same walk: both charts' marks (lines, knee, points, curve, crossing, labels) are where roofline_charts.py
    puts them at that setting, and their descriptions say what the build's would."""
    page = opened(pages, page_url)
    fig = page.locator(FIG)
    for hook, value, s in settings(dataset):
        move(fig, hook, value)
        expect(fig.locator("[data-roofline-words]")).to_have_text(sentences(dataset, s)[0])
        want = charts(dataset, trace, s)
        for svg, drawn in zip(("pass", "speedup"), want, strict=True):
            got = fig.locator(f"svg[data-roofline-{svg}]").evaluate("e => e.outerHTML")
            assert marks(drawn) and same_marks(got, drawn), (s, svg, marks(got), marks(drawn))
    v = worked(dataset, settings(dataset)[-1][2])
    desc = fig.locator("svg[data-roofline-pass] desc")
    assert v["hw"].name in desc.text_content() and ch.knee_str(v["knee"]) in desc.text_content()


@pytest.mark.browser
def test_at_the_defaults_the_scripts_charts_are_the_builds(pages, page_url, browser):
    """What a reader without scripting sees and what the script draws at start agree: the same marks at the same points,
    the same descriptions, the same sentences."""
    bare = browser.new_context(java_script_enabled=False)
    static = bare.new_page()
    static.goto(page_url)
    want = {h: static.locator(f"{FIG} svg[data-roofline-{h}]").evaluate("e => e.outerHTML") for h in ("pass", "speedup")}
    said = [static.locator(f"{FIG} [data-roofline-{h}]").text_content() for h in ("words", "stop")]
    bare.close()
    page = opened(pages, page_url)
    for hook, svg in want.items():
        got = page.locator(f"{FIG} svg[data-roofline-{hook}]").evaluate("e => e.outerHTML")
        assert marks(svg) and same_marks(got, svg), (hook, marks(got), marks(svg))
        assert re.search(r"<desc[^>]*>(.*?)</desc>", got).group(1) == re.search(r"<desc[^>]*>(.*?)</desc>", svg).group(1)
    assert [page.locator(f"{FIG} [data-roofline-{h}]").text_content() for h in ("words", "stop")] == said


def drawn(fig) -> tuple[str, str]:
    return tuple(fig.locator(f"svg[data-roofline-{h}]").evaluate("e => e.outerHTML") for h in ("pass", "speedup"))


@pytest.mark.browser
@pytest.mark.parametrize("hook", ["batch", "hardware", "pair"])
def test_both_charts_change_with_the_batch_the_hardware_and_the_pair(pages, page_url, dataset, hook):
    rf = dataset.roofline
    choices = {"batch": 2, "hardware": len(rf.hardware), "pair": len(rf.pairs)}[hook]
    if choices < 2:
        pytest.skip(f"the data file offers one {hook}: there is nothing to change to")
    page = opened(pages, page_url)
    fig = page.locator(FIG)
    before = drawn(fig)
    words = fig.locator("[data-roofline-words]").text_content()
    move(fig, hook, "6" if hook == "batch" else str(choices - 1))
    expect(fig.locator("[data-roofline-words]")).not_to_have_text(words)
    after = drawn(fig)
    assert after[0] != before[0] and after[1] != before[1]


# --- a broken twin is caught ------------------------------------------------------------------------------------

TWIN = """([rf, settings]) => {%s
  return settings.map(s => {
    const setting = { expected: expectedOf(rf.profiles[s.profile].a[s.m - 1], s.k), pair: rf.pairs[s.pair],
      hw: rf.hardware[s.hardware], bytes: rf.bytes, k: s.k, m: s.m };
    return [speedupAt(setting, 2 ** s.batch_log2), stopsPaying(setting)];
  });
}"""


def grid(dataset) -> list[dict]:
    """Returns every hardware, pair, profile, k and m at batches 1, 16, 256 and 4,096."""
    rf = dataset.roofline
    return [{"hardware": h, "pair": p, "profile": i, "k": k, "m": m, "batch_log2": e}
            for h in range(len(rf.hardware)) for p in range(len(rf.pairs)) for i in range(len(dataset.profiles))
            for k in range(1, dataset.k + 1) for m in (1, 2, 3, 4) for e in (0, 4, 8, 12)]


def disagreements(dataset, settings: list[dict], got: list, first: bool = False) -> list:
    """Returns each setting where the script's [speedup, stops paying] differs from roofline.py's (the first alone,
    with `first`)."""
    out = []
    for s, (speedup, stop) in zip(settings, got, strict=True):
        v = worked(dataset, s)
        if not close(speedup, v["speedup"]) or stop != v["stop"]:
            out.append((s, speedup, float(v["speedup"]), stop, v["stop"]))
            if first:
                break
    return out


@script_twin
def test_the_scripts_model_is_roofline_pys_at_every_choice(tmp_path, dataset, trace):
    source, settings = script_source("core.js", "roofline_model.js"), grid(dataset)
    got = call_js(tmp_path, TWIN % source, [trace["roofline"], settings])
    assert disagreements(dataset, settings, got) == []


@script_twin
def test_a_twin_whose_check_forgets_the_bonus_position_is_caught(tmp_path, dataset, trace):
    """A check scoring n·k tokens (the drafted positions without the one after them) in place of n·(k + 1): the same
    comparison finds settings where it differs."""
    source = script_source("core.js", "roofline_model.js")
    broken = source.replace("let nodes = 1, level = 1;", "let nodes = 0, level = 1;")
    assert broken != source, "the planted line is no longer in roofline_model.js"
    settings = grid(dataset)
    assert disagreements(dataset, settings, call_js(tmp_path, TWIN % broken, [trace["roofline"], settings]), first=True)


# --- reading it: accessibility and print ------------------------------------------------------------------------

@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_in_the_figure(pages, page_url, dataset, scheme):
    page = opened(pages, page_url)
    page.emulate_media(color_scheme=scheme)
    fig = page.locator(FIG)
    move(fig, "batch", "12")
    move(fig, "m", "2")
    expect(fig.locator("[data-roofline-words]")).to_have_text(sentences(dataset, {**defaults(dataset), "batch_log2": 12, "m": 2})[0])
    assert axe_violations(page, "#roofline") == []


@pytest.mark.browser
def test_the_figure_prints_the_chosen_setting(pages, page_url, dataset):
    """On paper the charts, both sentences and the line in place of the controls show what the reader chose, within
    the page's width."""
    page = opened(pages, page_url)
    fig = page.locator(FIG)
    rf, s = dataset.roofline, {**defaults(dataset), "batch_log2": 8, "hardware": len(dataset.roofline.hardware) - 1}
    move(fig, "batch", "8")
    move(fig, "hardware", str(len(rf.hardware) - 1))
    page.emulate_media(media="print")
    step, stop = sentences(dataset, s)
    expect(fig.locator(".fig-controls")).to_be_hidden()
    expect(fig.locator("[data-roofline-shown]")).to_be_visible()
    expect(fig.locator("[data-roofline-shown]")).to_have_text(shown(dataset, s))
    expect(fig.locator("[data-roofline-words]")).to_have_text(step)
    expect(fig.locator("[data-roofline-stop]")).to_have_text(stop)
    for hook in ("pass", "speedup"):
        expect(fig.locator(f"svg[data-roofline-{hook}]")).to_be_visible()
    expect(fig.locator(".roofline-curve")).to_have_count(1)
    expect(fig.locator(".roofline-step")).to_have_count(1)
    assert fig.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


# --- what the page says of the setting, the marks' key, the smallest speedups -----------------------------------

@pytest.mark.browser
def test_the_drawn_for_line_names_each_setting_and_without_scripting_the_builds(pages, page_url, dataset, browser):
    """The line that stands for the controls where they are not shown (without scripting, and on paper) names the
    hardware, pair, draft, k, m and batch the charts are drawn for, after each move; without scripting, the defaults."""
    bare = browser.new_context(java_script_enabled=False)
    static = bare.new_page()
    static.goto(page_url)
    assert static.locator(f"{FIG} [data-roofline-shown]").text_content() == shown(dataset, defaults(dataset))
    bare.close()
    page = opened(pages, page_url)
    fig = page.locator(FIG)
    expect(fig.locator("[data-roofline-shown]")).to_have_text(shown(dataset, defaults(dataset)))
    for hook, value, s in settings(dataset):
        move(fig, hook, value)
        expect(fig.locator("[data-roofline-shown]")).to_have_text(shown(dataset, s))


# Each mark a chart draws, by its class (and a check off the chart by its shape), and its entry in the figure's key.
# The speedup curve is the chart's subject, named by its title, not a mark the key explains.
KEYED = {"roofline-target": ".swatch-target", "roofline-draft": ".swatch-draft", "roofline-knee": ".roofline-key-knee",
         "roofline-step": ".roofline-key-step", "roofline-check": ".roofline-key-check", "past": "[data-roofline-past]",
         "roofline-one": ".roofline-key-one", "roofline-at": ".roofline-key-at", "roofline-cross": ".roofline-key-cross"}


def drawn_marks(fig) -> set[str]:
    found = set()
    for hook in ("pass", "speedup"):
        for tag, cls, numbers, _ in marks(fig.locator(f"svg[data-roofline-{hook}]").evaluate("e => e.outerHTML")):
            for name in cls.split():
                if name in KEYED:
                    found.add("past" if name == "roofline-check" and tag == "path" and len(numbers) == 6 else name)
    return found


@pytest.mark.browser
def test_the_key_has_an_entry_for_every_mark_drawn_and_the_off_chart_entry_only_when_it_is(pages, page_url, dataset):
    page = opened(pages, page_url)
    fig = page.locator(FIG)
    seen = set()
    for hook, value, s in [("", "", defaults(dataset)), *settings(dataset)]:
        if hook:
            move(fig, hook, value)
        expect(fig.locator("[data-roofline-words]")).to_have_text(sentences(dataset, s)[0])
        found = drawn_marks(fig)
        seen |= found
        for mark in found:
            expect(fig.locator(f".fig-key {KEYED[mark]}")).to_be_visible()
        past = expect(fig.locator(".fig-key [data-roofline-past]"))
        if "past" in found:
            past.to_be_visible()
        else:
            past.to_be_hidden()
    assert {"roofline-at", "roofline-step", "roofline-check"} <= seen


@pytest.mark.browser
def test_a_speedup_below_a_hundredth_reads_below_not_zero(pages, page_url, dataset):
    """The widest tree at the largest batch: a speedup that 2 decimals would write as 0.00 is written < 0.01."""
    s = {**defaults(dataset), "m": 4, "batch_log2": ch.BATCH_LOG2_MAX}
    if worked(dataset, s)["speedup"] >= Fraction(1, 100):
        pytest.skip("this data file's widest tree still gains a hundredth at the largest batch")
    page = opened(pages, page_url)
    fig = page.locator(FIG)
    move(fig, "m", "4")
    move(fig, "batch", str(ch.BATCH_LOG2_MAX))
    below = text.fill(W["times"], {"value": text.fill(W["below"], {"value": "0.01"})})
    expect(fig.locator("[data-roofline-words]")).to_have_text(sentences(dataset, s)[0])
    expect(fig.locator("[data-roofline-words]")).to_contain_text(below)
    assert "0.00×" not in fig.locator("[data-roofline-words]").text_content()
