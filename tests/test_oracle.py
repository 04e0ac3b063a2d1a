"""An independent oracle: every figure the page prints, worked out again from the definitions and compared with the
built trace and page.

It shares no code with the build. It reads data/profiles.v1.json with json and parses its fractions itself, computes
with plain loops and fractions.Fraction, rounds half-up with integers, and reads the built trace.json and index.html
as text. From the package it takes only the suite's constants (speculative.checks), which the page must state, and
one call of checks.check, to find where a check really fails.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from html import unescape
from html.parser import HTMLParser

import numpy as np
import pytest

import build
from speculative import checks

from .conftest import DATA

SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
ISOLATES = dict.fromkeys(map(ord, "\u2066\u2067\u2068\u2069"))  # bidi isolates around labels: not part of the words
# A 4-decimal figure may sit this far from the value it shows (half a unit in the last place, and a hair for the
# float the build computes it in). The build rounds once, from the full value.
HALF_ULP = Fraction(1, 2 * 10**4) + Fraction(1, 10**9)


# --- the definitions ------------------------------------------------------------------------------------------

def overlap(p: list[Fraction], q: list[Fraction]) -> Fraction:
    """α = Σ_y min(p(y), q(y))."""
    total = Fraction(0)
    for a, b in zip(p, q, strict=True):
        total += min(a, b)
    return total


def tokens_per_round(alphas: list[Fraction]) -> list[Fraction]:
    """P(N = n), n = 1..k+1: the first n - 1 positions pass and the n-th fails; N = k + 1 when all k pass."""
    out = []
    for n in range(1, len(alphas) + 1):
        passed = Fraction(1)
        for a in alphas[: n - 1]:
            passed *= a
        out.append(passed * (1 - alphas[n - 1]))
    every = Fraction(1)
    for a in alphas:
        every *= a
    return out + [every]


def expected(alphas: list[Fraction]) -> Fraction:
    """E = Σ_n n·P(N = n), checked against 1 + α1 + α1α2 + … + α1⋯αk."""
    by_distribution = sum((n * p for n, p in enumerate(tokens_per_round(alphas), start=1)), Fraction(0))
    by_products, run = Fraction(1), Fraction(1)
    for a in alphas:
        run *= a
        by_products += run
    assert by_distribution == by_products
    return by_products


def half_up(x: Fraction, places: int) -> str:
    """x ≥ 0 rounded half-up to `places` decimals, with integers only."""
    digits = str(math.floor(x * 10**places + Fraction(1, 2))).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}" if places else digits


def tv_bound(n: int, categories: int, delta: float) -> float:
    """Bretagnolle–Huber–Carol: P(‖freq − p‖₁ ≥ ε) ≤ 2^V exp(−nε²/2); the TV that n honest draws pass with prob. ≤ δ."""
    return math.sqrt((categories * math.log(2) + math.log(1 / delta)) / (2 * n))


def best_k(column: list[Fraction]) -> int:
    """The 1-based k with the highest speedup, the smallest on a tie."""
    best = 1
    for k in range(2, len(column) + 1):
        if column[k - 1] > column[best - 1]:
            best = k
    return best


def checkpoints(total: int) -> list[int]:
    """10, 30, 100, 300, … below total, then total."""
    sizes, n = [], 10
    while n < total:
        sizes.append(n)
        n = n * 3 if str(n).startswith("1") else n * 10 // 3
    return sizes + [total]


# --- reading the data, the trace and the page ----------------------------------------------------------------

@pytest.fixture(scope="session")
def data() -> dict:
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    rows = lambda table: [[Fraction(x) for x in row] for row in table]  # noqa: E731
    vocab = raw["vocabulary"]
    return {"vocab": vocab, "target": rows(raw["target"]), "bonus": [Fraction(x) for x in raw["bonus_target"]],
            "profiles": [{"id": p["id"], "name": p["name"], "draft": rows(p["draft"]),
                          "proposals": [vocab.index(t) for t in p["proposals"]]} for p in raw["profiles"]],
            "draft_step": Fraction(raw["cost_model"]["draft_step"]), "verify": Fraction(raw["cost_model"]["verify_round"]),
            "compare": [Fraction(c) for c in raw["cost_model"]["compare_draft_steps"]],
            "rounds": raw["monte_carlo"]["rounds"], "drawn": raw["drawn_rounds"]}


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("oracle") / "site"
    assert build.main(["--out", str(out)]) == 0
    return out


@pytest.fixture(scope="session")
def page_trace(site) -> dict:
    return json.loads((site / "trace.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def html(site) -> str:
    return (site / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def text(html) -> str:
    """The page's words, as a reader without scripting sees them: no tags, no scripts, spaces collapsed."""
    body = re.sub(r"<script.*?</script>|<style>.*?</style>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", body)).translate(ISOLATES).replace("\xa0", " ").split())


class Tables(HTMLParser):
    """Collects every table: its caption and its rows of cell texts. A cell ends at its end tag or where the HTML
    standard implies one (the page leaves out </td>, </th> and </tr> before the next cell or row)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self.cell: list[str] | None = None
        self.kind = ""

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th", "tr", "tbody", "thead"):
            self.end_cell()
        if tag == "table":
            self.tables.append({"caption": "", "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th", "caption") and self.tables:
            self.cell, self.kind = [], tag

    def handle_endtag(self, tag):
        if tag in ("td", "th", "caption", "tr", "tbody", "thead", "table"):
            self.end_cell()

    def end_cell(self) -> None:
        if self.cell is not None:
            words = " ".join("".join(self.cell).translate(ISOLATES).replace("\xa0", " ").split())
            if self.kind == "caption":
                self.tables[-1]["caption"] = words
            else:
                self.tables[-1]["rows"][-1].append(words)
            self.cell = None

    def handle_data(self, chunk):
        if self.cell is not None:
            self.cell.append(chunk)


@pytest.fixture(scope="session")
def tables(html) -> list[dict]:
    parser = Tables()
    parser.feed(html)
    return parser.tables


def table_named(tables: list[dict], caption_start: str) -> dict:
    found = [t for t in tables if t["caption"].lower().startswith(caption_start.lower())]
    assert len(found) == 1, caption_start
    return found[0]


def power_of_ten(written: str) -> float:
    """10⁻⁶ -> 1e-06."""
    return 10.0 ** int(written.translate(SUPERSCRIPT))


def stated(text: str, pattern: str) -> re.Match:
    found = re.search(pattern, text)
    assert found, f"the page no longer states: {pattern}"
    return found


def stated_delta(text: str) -> float:
    return power_of_ten(stated(text, r"with probability 1 − 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+), the noise of sampling alone keeps TV below it").group(1))


def number(shown: str | int) -> int:
    """'74,987 rounds' -> 74987; a count the trace holds as a number is itself."""
    return shown if isinstance(shown, int) else int(re.match(r"[\d,]+", shown).group().replace(",", ""))


def profile_alphas(data: dict, profile: dict) -> list[Fraction]:
    return [overlap(p, q) for p, q in zip(data["target"], profile["draft"], strict=True)]


def speedups(data: dict, profile: dict) -> list[list[Fraction]]:
    """[cost][k]: E over the first k positions, divided by k·c + the verification's cost."""
    alphas = profile_alphas(data, profile)
    return [[expected(alphas[:k]) / (k * c + data["verify"]) for k in range(1, len(alphas) + 1)] for c in data["compare"]]


# --- α, P(N = n) and E ----------------------------------------------------------------------------------------

def test_alpha_at_every_position_matches_the_trace_and_the_page(data, page_trace, text):
    for profile, shown in zip(data["profiles"], page_trace["profiles"], strict=True):
        alphas = profile_alphas(data, profile)
        assert [Fraction(a) for a in shown["stats"]["accept_probabilities"]] == alphas
        assert [Fraction(p["alpha"]) for p in shown["positions"]] == alphas
        line = stated(text, rf"(?i){re.escape(profile['name'])}: α = ([^a-z]+?), so E = (\S+) ≈ (\S+) tokens")
        assert [Fraction(a) for a in line.group(1).split(", ")] == alphas
        assert (Fraction(line.group(2)), line.group(3)) == (expected(alphas), half_up(expected(alphas), 2))


def test_tokens_per_round_has_k_plus_one_outcomes_in_the_trace(data, page_trace):
    k = len(data["target"])
    for profile, shown in zip(data["profiles"], page_trace["profiles"], strict=True):
        dist = tokens_per_round(profile_alphas(data, profile))
        assert len(dist) == k + 1 and sum(dist) == 1
        assert [Fraction(p) for p in shown["stats"]["tokens_per_round_distribution"]] == dist
        assert "lengths_exact" not in shown["convergence"]  # the chart reads the stats' own copy


def test_the_share_of_rounds_that_draw_the_bonus_is_p_n_equals_k_plus_one(data, text):
    shares = re.findall(r"Used only when every proposal passes \(([\d.]+%) of rounds", text)
    assert shares == [half_up(tokens_per_round(profile_alphas(data, p))[-1] * 100, 1) + "%" for p in data["profiles"]]


def test_expected_tokens_and_speedup_match_the_trace_and_the_page(data, page_trace, text):
    k = len(data["target"])
    cost = k * data["draft_step"] + data["verify"]
    stated(text, rf"A round of k = {k} then costs {k} × {data['draft_step']} \+ {data['verify']} = {cost} target passes")
    for profile, shown in zip(data["profiles"], page_trace["profiles"], strict=True):
        e = expected(profile_alphas(data, profile))
        s = shown["stats"]
        assert (Fraction(s["expected_tokens_exact"]), s["expected_tokens_display"]) == (e, half_up(e, 2))
        assert (Fraction(s["round_cost"]), s["speedup_display"]) == (cost, half_up(e / cost, 2))
        assert abs(s["expected_tokens_per_round"] - float(e)) < 1e-12 and abs(s["speedup"] - float(e / cost)) < 1e-12
        stated(text, rf"(?i){re.escape(profile['name'])}: α = [^\n]*?, so E = {e} ≈ {half_up(e, 2)} tokens committed per "
                     rf"round, and the speedup is \({e}\) ÷ {cost} ≈ {half_up(e / cost, 2)}× faster")


# --- the speedup table, its stars and its peaks ---------------------------------------------------------------

def places(column: list[Fraction]) -> int:
    """Returns the decimals a column of speedups is shown to: 2, or more (up to 4) where its best k would otherwise
    read the same as another k."""
    return next((n for n in (2, 3) if [half_up(x, n) for x in column].count(half_up(max(column), n)) == 1), 4)


def test_speedup_table_matches_the_trace(data, page_trace):
    k = len(data["target"])
    assert [[Fraction(x) for x in row] for row in page_trace["explorer"]["round_costs"][0]] == [  # free checks
        [j * c + data["verify"] for j in range(1, k + 1)] for c in data["compare"]]
    for profile, shown in zip(data["profiles"], page_trace["profiles"], strict=True):
        table = speedups(data, profile)  # [cost][k]
        free = {key: shown["explorer"][key]["accept-test"][0] for key in ("values", "slow", "best")}  # the accept test, free checks
        assert list(free["values"]) == [[half_up(v, places(column)) for v in column] for column in table]
        assert free["slow"] == [[v < 1 for v in column] for column in table]
        assert free["best"] == [best_k(column) if max(column) > 1 else 0 for column in table]


def test_speedup_table_on_the_page_marks_each_costs_best_k(data, tables):
    for profile in data["profiles"]:
        table = speedups(data, profile)
        shown = table_named(tables, f"{profile['name']}: speedup by the assumed cost")["rows"]
        assert shown[0] == ["cost", *[f"k = {k}" for k in range(1, len(table[0]) + 1)]]
        for cost, column, row in zip(data["compare"], table, shown[1:], strict=True):  # one row per cost
            expected_cells = [half_up(v, places(column)) + "×" + (" ★" if best_k(column) == k and max(column) > 1 else "")
                              for k, v in enumerate(column, start=1)]
            assert row == [str(cost), *expected_cells], (profile["id"], cost)


def test_speedup_peaks_in_the_prose(data, text):
    k = len(data["target"])
    column_of = data["compare"].index(data["draft_step"])
    for profile in data["profiles"]:
        column = speedups(data, profile)[column_of]
        peak = best_k(column)
        at = f"k = {peak} ({half_up(column[peak - 1], 3)}×)"
        sentence = f"For {profile['name']}, the speedup " + (  # a peak only where a larger k is worse
            f"peaks at {at}; k = {peak + 1} gives {half_up(column[peak], 3)}×, so drafting more does not pay" if peak < k
            else f"is highest at {at}, the largest k this data allows, so it cannot show where drafting more stops paying")
        assert sentence in text


# --- the identity tables --------------------------------------------------------------------------------------

def identity_rows(p: list[Fraction], q: list[Fraction]) -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
    """Per token: accepted min(p, q), replaced (1 − α)·residual, their total, and p."""
    alpha = overlap(p, q)
    left = [max(Fraction(0), a - b) for a, b in zip(p, q, strict=True)]
    total_left = sum(left, Fraction(0))
    rows = []
    for a, b, rest in zip(p, q, left, strict=True):
        replaced = (1 - alpha) * (rest / total_left) if total_left else Fraction(0)
        rows.append((min(a, b), replaced, min(a, b) + replaced, a))
    return rows


def test_identity_table_is_the_walkthroughs_first_rejection_summed_exactly(data, page_trace, tables):
    where = page_trace["points"]["residual"]
    index, pos = 0, 1
    if where:
        _, pid, frame = where.split("/")
        index = [p["id"] for p in data["profiles"]].index(pid)
        pos = page_trace["profiles"][index]["walk"]["frames"][int(frame) - 1]["pos"]
    profile = data["profiles"][index]
    table = table_named(tables, f"{profile['name']}, position {pos}: what each token")
    expected_rows = identity_rows(data["target"][pos - 1], profile["draft"][pos - 1])
    assert [row[0] for row in table["rows"][1:]] == data["vocab"]
    assert [tuple(Fraction(x) for x in row[1:]) for row in table["rows"][1:]] == expected_rows
    assert all(total == p for _, _, total, p in expected_rows)


def test_identity_holds_at_every_position_as_the_summary_says(data, text):
    positions = [(p, q) for profile in data["profiles"] for p, q in zip(data["target"], profile["draft"], strict=True)]
    equal = sum(all(total == p for _, _, total, p in identity_rows(p, q)) for p, q in positions)
    assert equal == len(positions)
    assert f"matches the target at all {len(positions)} positions." in text


# --- the Monte Carlo checks: counts, TV, bounds, tokens per round ----------------------------------------------

def test_checkpoints_are_prefixes_of_one_run_reached_by_fewer_rounds_at_later_positions(data, page_trace):
    for shown in page_trace["profiles"]:
        conv = shown["convergence"]
        assert conv["rounds"] == data["rounds"] and conv["checkpoints"] == checkpoints(data["rounds"])
        for size, counts in zip(conv["checkpoints"], conv["reached"], strict=True):
            assert all(isinstance(n, int) for n in counts)
            assert counts[0] == size and counts == sorted(counts, reverse=True)


def test_every_tv_bound_uses_its_own_count_and_the_stated_delta(data, page_trace, text):
    delta, size = stated_delta(text), len(data["vocab"])
    for shown in page_trace["profiles"]:
        conv = shown["convergence"]
        for c, (reached, bounds, vacuous) in enumerate(zip(conv["reached"], conv["bound_text"], conv["vacuous"], strict=True)):
            for i, (n, bound) in enumerate(zip(map(number, reached), bounds, strict=True)):
                if n == 0:  # no round reached this position by this checkpoint: no bound, and nothing vacuous
                    assert bound == "–", (shown["id"], c, i, bound)
                    continue
                exact = tv_bound(n, size, delta)
                assert abs(Fraction(bound) - Fraction(min(exact, 1.0))) <= HALF_ULP, (shown["id"], c, i, bound, exact)
                assert vacuous[i] == (exact >= 1)


def observed_tv(freq: list[float], target: list[Fraction], n: int) -> tuple[Fraction, Fraction]:
    """Returns the TV of the shown 3-decimal frequencies from p, and how far the true TV may be from it."""
    if n < 1000:  # 3 decimals pin every count down: the TV is exact
        counts = [round(f * n) for f in freq]
        assert sum(counts) == n
        return sum((abs(Fraction(c, n) - p) for c, p in zip(counts, target, strict=True)), Fraction(0)) / 2, HALF_ULP
    shown = sum((abs(Fraction(str(f)) - p) for f, p in zip(freq, target, strict=True)), Fraction(0)) / 2
    return shown, Fraction(len(target), 2 * 2000) + HALF_ULP


def test_every_tv_is_half_the_summed_difference_from_the_target(data, page_trace):
    targets = [*data["target"], data["bonus"]]
    for shown in page_trace["profiles"]:
        conv = shown["convergence"]
        for c, reached in enumerate(conv["reached"]):
            for i, n in enumerate(map(number, reached)):
                if n == 0:  # never reached by this checkpoint: the page shows no distance
                    assert conv["tv_text"][c][i] == "–", (shown["id"], c, i)
                    continue
                tv, slack = observed_tv(conv["freq"][c][i], targets[i], n)
                assert abs(Fraction(conv["tv_text"][c][i]) - tv) <= slack, (shown["id"], c, i)
                bound = Fraction(conv["bound_text"][c][i])
                if abs(tv - bound) > 2 * slack:
                    assert conv["within"][c][i] == (tv <= bound)


def test_tokens_per_round_counts_follow_from_how_many_rounds_reached_each_position(data, page_trace):
    for profile, shown in zip(data["profiles"], page_trace["profiles"], strict=True):
        conv = shown["convergence"]
        for size, reached, freq in zip(conv["checkpoints"], conv["reached"], conv["lengths_freq"], strict=True):
            counts = [number(r) for r in reached]  # N >= n exactly when position n was reached
            lengths = [counts[n] - counts[n + 1] for n in range(len(counts) - 1)] + [counts[-1]]
            assert [Fraction(str(f)) for f in freq] == [Fraction(half_up(Fraction(c, size), 3)) for c in lengths]
        exact = tokens_per_round(profile_alphas(data, profile))
        for count, p in zip(lengths, exact, strict=True):  # the whole run: within 5 standard deviations of P(N = n)
            assert abs(Fraction(count, size) - p) <= 5 * math.sqrt(p * (1 - p) / size) + 1e-9


def test_tv_table_on_the_page_after_all_rounds(data, page_trace, tables, text):
    delta, size, k = stated_delta(text), len(data["vocab"]), len(data["target"])
    shown_tables = [t for t in tables if t["caption"].startswith(f"After all {data['rounds']:,} rounds")]
    assert len(shown_tables) == len(data["profiles"])
    for table, shown in zip(shown_tables, page_trace["profiles"], strict=True):
        conv, rows = shown["convergence"], table["rows"][1:]
        assert [r[0] for r in rows] == [f"position {i}" for i in range(1, k + 1)] + [f"bonus position {k + 1}"]
        for i, row in enumerate(rows):
            n = number(conv["reached"][-1][i])
            assert row[1:4] == [f"{n:,}", conv["tv_text"][-1][i], conv["bound_text"][-1][i]]
            assert abs(Fraction(row[3]) - Fraction(tv_bound(n, size, delta))) <= HALF_ULP
            assert row[4] == ("within" if Fraction(row[2]) <= Fraction(row[3]) else "above")


# --- the drawn rounds ------------------------------------------------------------------------------------------

def drawn_facts(data: dict, profile: dict, rounds: list[dict], page_trace: dict) -> tuple[Fraction, int]:
    """Returns the mean tokens the rounds committed and how many hold a check chance decides; checks each verdict.
    """
    committed, chance = 0, 0
    for rnd in rounds:
        verify = [(f["pos"], f["slots"], f["u"]) for f in rnd["frames"] if f["kind"] == "verify"]
        decided = False
        for pos, slots, u in verify:
            x = rnd["proposals"][pos - 1]
            p, q = data["target"][pos - 1][x], profile["draft"][pos - 1][x]
            accept = min(Fraction(1), p / q)
            assert slots[pos - 1] == ("accepted" if Fraction(u) < accept else "rejected")  # u < min(1, p/q) accepts
            decided = decided or 0 < accept < 1
        committed += len(verify) + (rnd["bonus"] is not None)  # one token per checked position, plus the bonus
        chance += decided
    return Fraction(committed, len(rounds)), chance


def test_drawn_rounds_means_and_chance_counts_match_the_page(data, page_trace, text):
    means, chances = [], []
    for profile, shown in zip(data["profiles"], page_trace["profiles"], strict=True):
        assert len(shown["drawn"]) == data["drawn"]
        mean, chance = drawn_facts(data, profile, shown["drawn"], page_trace)
        means.append((half_up(mean, 2), half_up(expected(profile_alphas(data, profile)), 2)))
        if any(0 < p / q < 1 for ps, qs in zip(data["target"], profile["draft"], strict=True) for p, q in zip(ps, qs, strict=True) if q):
            chances.append((str(chance), str(data["drawn"])))
    assert re.findall(r"[Ii]ts drawn rounds committed ([\d.]+) tokens per round on average, against an expected ([\d.]+)\.",
                      text) == means
    assert re.findall(r"(\d+) of the (\d+) drawn rounds contain a check that chance decides", text) == chances


# --- the joint check, the threshold, and the constants the page states -------------------------------------------

def test_joint_tv_is_within_the_bound_the_page_states_for_its_count(text):
    delta = stated_delta(text)
    toy = int(stated(text, r"context-dependent toy of (\d+) tokens").group(1))
    found = stated(text, r"Over the first (\d+) tokens of ([\d,]+) such texts, the joint distribution is ([\d.]+) in "
                         r"total variation from the target written one token at a time, within its bound of ([\d.]+)\.")
    length, texts, tv, bound = int(found.group(1)), number(found.group(2)), Fraction(found.group(3)), Fraction(found.group(4))
    assert abs(bound - Fraction(tv_bound(texts, toy**length, delta))) <= HALF_ULP  # over all V^L sequences
    assert 0 < tv <= bound
    assert (length, texts, toy) == (checks.SEQUENCE_LENGTH, checks.PAGE_SEQUENCE_TEXTS, len(checks.TOY.vocabulary))


def counts_with_p_value(target: float, n: int = 1_000_000) -> list[int]:
    """Returns counts of n draws over 10 equally likely cells whose chi-square p-value is near `target`."""
    from scipy.stats import chi2

    shift = round(math.sqrt(chi2.isf(target, 9) * n / 20))  # moving d draws between two cells: chi² = 20 d² / n
    return [n // 10 + shift, n // 10 - shift] + [n // 10] * 8


@pytest.mark.parametrize("factor, fails", [(1 / 30, True), (30, False)])
def test_a_check_fails_exactly_below_the_threshold_the_page_states(text, factor, fails):
    from scipy.stats import chisquare

    threshold = power_of_ten(stated(text, r"fail when the p-value is below 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)").group(1))
    counts = counts_with_p_value(threshold * factor)
    p = chisquare(counts).pvalue
    assert bool(p < threshold) is fails
    result = checks.check("x", np.array(counts), np.full(10, 0.1))
    assert result.tv < result.bound  # the TV bound passes it: the p-value alone decides
    assert (result.problem is not None) is fails, result.problem
    if fails:
        assert result.problem.startswith("x: chi-square p = ")


def test_the_page_states_the_suites_own_constants(text):
    assert stated_delta(text) == checks.P_MIN
    assert power_of_ten(stated(text, r"fail when the p-value is below 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)").group(1)) == checks.P_MIN
    assert stated(text, r"as small as ([\d.]+) in total variation").group(1) == f"{checks.DETECTABLE_TV:g}"
    assert stated(text, r"caught with probability at least (\d+%)").group(1) == f"{checks.POWER:.0%}"


def test_the_checks_tv_bound_uses_the_delta_the_page_states(text):
    delta = stated_delta(text)
    for n, size in [(10, 6), (74_987, 6), (1_000_000, 81)]:
        counts = np.zeros(size, int)
        counts[0] = n
        assert checks.check("x", counts, np.full(size, 1 / size)).bound == pytest.approx(tv_bound(n, size, delta), rel=1e-12)
