"""Prose that follows the data: after each realistic, valid edit of the data file, every sentence on the page that
states a fact about the data still holds, in the no-JS page and in the trace.

The edits are the ones an author makes: an authored proposal that chance now decides (the divergent draft's "mat"
at position 2 given q = 4/8, so min(1, (2/8)/(4/8)) = 1/2), the aligned draft rejected at its first position, the
divergent draft's rejection moved from position 3 to position 5, a seventh token, and a renamed profile."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from html import unescape

import pytest

from .conftest import edited_data
from .tracekit import point_frame, shows


def chance_at_divergent_2(raw):
    raw["profiles"][1]["draft"][1] = ["1/8", "1/8", "0", "2/8", "0", "4/8"]


def aligned_rejected_first(raw):
    raw["profiles"][0]["proposals"][0] = "sat"


def divergent_rejects_at_5(raw):
    raw["profiles"][1]["proposals"] = ["the", "mat", "sat", "on", "cat"]


def seventh_token(raw):
    raw["vocabulary"].append("dog")
    for row in [*raw["target"], raw["bonus_target"], *(r for p in raw["profiles"] for r in p["draft"])]:
        row.append("0")


def renamed(raw):
    raw["profiles"][0].update(id="matched", name="a well matched draft")


EDITS = {f.__name__: f for f in (chance_at_divergent_2, aligned_rejected_first, divergent_rejects_at_5, seventh_token,
                                 renamed)}


def no_js_text(html: str) -> str:
    """The page's prose as a reader without scripting reads it, less the generator's lanes: the n-gram models write
    those from the prose itself, so they can repeat any phrase of it (such as "Slide Rounds")."""
    html = re.sub(r"<script.*?</script>|<style>.*?</style>|<p class=\"generator-text\">.*?</p>", "", html, flags=re.S)
    html = html.replace("<noscript data-static>", "").replace("<noscript>", "").replace("</noscript>", "")
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split()).replace(" .", ".").replace(" ,", ",")


@pytest.fixture(scope="session", params=list(EDITS))  # each edit built once per worker
def edited(request, tmp_path_factory):
    """The page built from the known data file (conftest.FIXTURE) with one of EDITS applied: the edits name its
    profile ids, proposals and rows, so they work whatever data/profiles.v1.json holds."""
    from speculative import checkout, pipeline

    folder = tmp_path_factory.mktemp(request.param)
    data = edited_data(folder, EDITS[request.param])
    files = pipeline.build_files(data, checkout.ROOT / "content", checkout.ROOT / "templates")
    return request.param, json.loads(files["trace.json"]), no_js_text(files["index.html"].decode("utf-8"))


def walk_frames(p):
    return [row for row in p["walk"]["frames"]]


def test_the_walkthroughs_certainty_sentence_is_true(edited):
    _, trace, text = edited
    chance = [p["name"] for p in trace["profiles"] if any(f["chance"] for f in walk_frames(p))]
    if chance:
        assert f"In the authored round of {' and '.join(chance)}, chance decides at least one check." in text
        assert "no draw can change a verdict" not in text
    else:
        assert "Every one of their checks has an accept probability of 0 or 1, so no draw can change a verdict." in text


def test_each_profiles_frame_count_is_the_lists(edited):
    _, trace, text = edited
    for p in trace["profiles"]:
        n = len(p["walk"]["frames"])
        assert f"{p['name'][:1].upper()}{p['name'][1:]}: {n} frames" in text


def test_every_show_me_link_opens_a_frame_that_shows_its_point(edited):
    _, trace, text = edited
    for point, href in trace["points"].items():
        if href is None:
            continue
        p, rnd, round_, i = point_frame(trace, href)
        assert point in shows(rnd["frames"][i - 1]), (point, href)
        where = f"drawn round {round_}, " if round_ else ""
        assert f"Show me: {p['name']}, {where}frame {i} of {len(rnd['frames'])}" in text


def test_the_drawn_rounds_chance_counts_are_the_traces(edited):
    _, trace, text = edited
    for p in trace["profiles"]:
        n = sum(any(row["chance"] for row in rnd["frames"]) for rnd in p["drawn"])
        proposable = [a for pos in p["positions"] for a in pos["accept"] if a is not None]
        if any(0 < Fraction(a) < 1 for a in proposable):
            many = len(p["drawn"])
            said = f"all {many} drawn rounds contain" if n == many else \
                f"{n or 'none'} of the {many} drawn rounds {'contains' if n <= 1 else 'contain'}"
            assert f"{said} a check that chance decides" in text
        else:
            assert "chance never decides one of its checks" in text


def test_each_drafts_e_is_stated_as_computed(edited):
    _, trace, text = edited
    for p in trace["profiles"]:
        s = p["stats"]
        assert f"so E = {s['expected_tokens_exact']} ≈ {s['expected_tokens_display']} tokens committed per round" in text


def test_exact_match_is_called_slower_only_when_it_is(edited):
    _, trace, text = edited
    for p in trace["profiles"]:
        name = p["name"][:1].upper() + p["name"][1:]
        said = re.search(re.escape(name) + r": E is \S+ under the accept test, \S+ with a greedy draft and \S+ under "
                         r"exact match, and exact match \(", text) is not None
        table = re.search(re.escape(name) + r" The chance that a reached position’s check passes.*?speedup ([0-9.]+)× "
                          r"([0-9.]+)× ([0-9.]+)×", text)
        assert table, name
        assert said == (float(table.group(3)) < 1)


@pytest.mark.shipped
def test_the_edits_reach_what_they_are_meant_to(tmp_path):
    """The edits do what the module says: so the sentences above are tested in both of their forms."""
    from speculative import checkout, pipeline

    found = {}
    for name in ("chance_at_divergent_2", "aligned_rejected_first"):
        files = pipeline.build_files(edited_data(tmp_path, EDITS[name], f"{name}.json"), checkout.ROOT / "content",
                                  checkout.ROOT / "templates")
        trace = json.loads(files["trace.json"])
        found[name] = [any(f["chance"] for f in walk_frames(p)) for p in trace["profiles"]], \
            [any("rejected" in f["slots"] for f in walk_frames(p)) for p in trace["profiles"]]
    assert found["chance_at_divergent_2"][0] == [False, True]  # the divergent authored round: chance decides
    assert found["aligned_rejected_first"][1] == [True, True]  # the aligned authored round now has a rejection


# --- the cost model's words follow its numbers ----------------------------------------------------------------

def cost_page(tmp_path, **cost) -> str:
    from speculative import checkout, pipeline

    def edit(raw):
        raw["cost_model"].update(cost)
    files = pipeline.build_files(edited_data(tmp_path, edit), checkout.ROOT / "content", checkout.ROOT / "templates")
    return no_js_text(files["index.html"].decode("utf-8"))


def test_a_verification_cost_of_two_steps_is_said_everywhere(tmp_path):
    text = cost_page(tmp_path, verify_round="2")  # round cost 5 × 1/10 + 2 = 5/2; the worst round 1/(5/2) = 0.40×
    assert "checking all k positions in one pass costs 2 target passes (Leviathan et al. assume" in text
    assert "The cost model above charges 2 target passes for checking a whole round" in text
    assert "a round costs k·c + 2 target passes under the cost model above" in text
    assert "charges one target pass" not in text and "2 target pass " not in text and "k·c + 1 target passes" not in text
    assert "costs 2 target passes (Leviathan et al. assume one target pass)" in text


def test_a_free_draft_step_ties_the_worst_round_with_plain_decoding(tmp_path):
    text = cost_page(tmp_path, draft_step="0", compare_draft_steps=["0", "1/10"])  # a rejected round: 1 step, 1 token
    assert "costs 1 target pass for that one token: 1.00× the speed of plain decoding, which is no faster." in text
    assert "1 target pass per token here, so it only ties with plain decoding" in text
    assert "Assume one draft step costs 0 target passes," in text and "5 × 0 + 1 = 1 target pass and commits" in text
    assert not re.search(r"(?<![\d/])0 of a target pass|(costs|=) 1 target passes|1 target passes per", text)
    assert "which is slower" not in text and "so it loses to plain decoding" not in text
    assert "At the costs assumed here even that worst round ties with plain decoding; in general" in text
    assert "worst round beats" not in text


def test_a_cheap_verification_makes_the_worst_round_faster_and_the_page_says_so(tmp_path):
    text = cost_page(tmp_path, draft_step="0", verify_round="1/2", compare_draft_steps=["0"])
    assert "2.00× the speed of plain decoding, which is still faster." in text
    assert "so it still beats plain decoding at these costs" in text


def test_one_draft_is_not_called_both(tmp_path):
    from speculative import checkout, pipeline

    files = pipeline.build_files(edited_data(tmp_path, lambda raw: raw["profiles"].pop()), checkout.ROOT / "content",
                              checkout.ROOT / "templates")
    text = no_js_text(files["index.html"].decode("utf-8"))
    assert "exact fractions, on the draft and on" in text and "both drafts" not in text


def test_positions_no_round_reached_show_no_tv_and_no_verdict(tmp_path):
    """A draft that never passes position 1 (q only where p = 0): positions 2 to 6 are never reached, so the TV table
    has nothing to compare there; it once printed TV 0.0000 under a bound of 2.9979, "within"."""
    from speculative import checkout, pipeline

    def disjoint(raw):
        raw["profiles"][1]["draft"][0] = ["0", "0", "4/8", "4/8", "0", "0"]  # target[0] is 0 at "sat" and "on"
        raw["profiles"][1]["proposals"][0] = "sat"
    files = pipeline.build_files(edited_data(tmp_path, disjoint), checkout.ROOT / "content", checkout.ROOT / "templates")
    html = files["index.html"].decode("utf-8")
    table = re.search(r'<table class="convergence-table">(?:(?!</table>).)*?convergence-table-divergent.*?</table>', html, re.S).group(0)
    rows = [[unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)(?=<t[hd]|</tr>|$)", r, re.S)]
            for r in re.findall(r"<tr>(.*?)(?=<tr>|</tbody>)", table.split("<tbody>")[1], re.S)]
    assert rows[0][1] == "100,000" and rows[0][4] == "within"
    for row in rows[1:]:
        assert row[1:] == ["0", "–", "–", "–"], row
    trace = json.loads(files["trace.json"])
    conv = next(p for p in trace["profiles"] if p["id"] == "divergent")["convergence"]
    assert all(t[1:] == ["–"] * 5 for t in conv["tv_text"] + conv["bound_text"])
    assert all(float(b) <= 1 for t in conv["bound_text"] for b in t if b != "–")


@pytest.mark.shipped
def test_a_speedup_below_one_is_not_called_faster(tmp_path):
    """With a draft step as dear as a target pass, every rule and every k is slower than plain decoding."""
    text = cost_page(tmp_path, draft_step="1", compare_draft_steps=["1/10", "1"])
    # aligned: E = 64267/16384 over a round of 5 × 1 + 1 = 6 steps ≈ 0.65
    assert "the speedup is (64267/16384) ÷ 6 ≈ 0.65×: slower than plain decoding." in text
    assert "× faster" not in text.split("so E = ")[1].split("Drafting more")[0]  # the speedup section's list and fold
    assert "For a divergent draft, every k is slower than plain decoding at this cost; the least slow is k = 1" in text
    assert "so drafting more does not pay" not in text
    assert ("and the accept test (0.65×), a greedy draft (0.37×) and exact match (0.24×) are slower than plain "
            "decoding at these costs") in text


def test_the_peak_is_said_at_a_draft_cost_the_explorer_does_not_compare(tmp_path):
    """The page's own draft step once had to be one of the compared costs, or "At this cost:" led to nothing."""
    text = cost_page(tmp_path, draft_step="1/8", compare_draft_steps=["1/10", "1/2"])
    after = text.split("At this cost:")[1]
    assert re.match(r"For a closely aligned draft, the speedup (peaks|is highest) at k = ", after.lstrip())
    assert re.search(r"For a divergent draft, the speedup (peaks|is highest) at k = ", after)


def test_a_point_no_authored_round_shows_links_to_a_drawn_round_that_does(tmp_path):
    """With no authored rejection, "Show me" once said no frame shows a rejection, while drawn rounds showed many."""
    from speculative import checkout, pipeline

    def no_authored_rejection(raw):
        raw["profiles"][1]["proposals"] = ["the", "cat", "sat", "on", "a"]  # each with p >= q: accepted outright
    files = pipeline.build_files(edited_data(tmp_path, no_authored_rejection), checkout.ROOT / "content",
                              checkout.ROOT / "templates")
    text, trace = no_js_text(files["index.html"].decode("utf-8")), json.loads(files["trace.json"])
    assert "No frame in the current data shows this" not in text and "). That holds" not in text
    for point in ("zero", "drop", "residual"):
        _, profile_id, rest = trace["points"][point].split("/", 2)
        assert rest.startswith("r"), (point, rest)  # a drawn round: "r<round>/<frame>"
        round_, frame = (int(x) for x in rest[1:].split("/"))
        p = next(p for p in trace["profiles"] if p["id"] == profile_id)
        f = p["drawn"][round_ - 1]["frames"][frame - 1]
        assert f"Show me: {p['name']}, drawn round {round_}, frame {frame} of {len(p['drawn'][round_ - 1]['frames'])}" in text
        if point == "drop":
            assert f["kind"] == "done" and "dropped" in f["slots"]
        else:
            assert f["kind"] == "verify" and f["slots"][f["pos"] - 1] == "rejected"


def test_a_draft_equal_to_the_target_shows_the_capped_point(tmp_path):
    """p = q gives the ratio 1: accepted outright, as the point says for p(x) >= q(x)."""
    from speculative import checkout, pipeline

    def equal(raw):
        for p in raw["profiles"]:
            p["draft"] = [row[:] for row in raw["target"]]
            p["proposals"] = ["the", "cat", "sat", "on", "a"]
    files = pipeline.build_files(edited_data(tmp_path, equal), checkout.ROOT / "content", checkout.ROOT / "templates")
    text = no_js_text(files["index.html"].decode("utf-8"))
    assert "passes whatever u is. Show me: a closely aligned draft, frame 2 of 8" in text


def chart_descriptions(html: str) -> list[str]:
    return [unescape(d) for d in re.findall(r'<desc id="convergence-chart-[^"]+">(.*?)</desc>', html, re.S)]


def test_the_tv_charts_description_follows_the_run(tmp_path):
    """Ten rounds, one checkpoint: the bound has nowhere to fall (it once 'fell from 1.0000 to 1.0000'), and a position no round
    reached has no TV (it read 0.0000). A draft equal to the target: every round reaches every position."""
    from speculative import checkout, pipeline

    def tiny(raw):
        raw["monte_carlo"]["rounds"] = 10
        raw["profiles"][1]["draft"][0] = ["0", "0", "4/8", "4/8", "0", "0"]  # never passes position 1
        raw["profiles"][1]["proposals"][0] = "sat"
        raw["profiles"][0]["draft"] = [row[:] for row in raw["target"]]
    files = pipeline.build_files(edited_data(tmp_path, tiny), checkout.ROOT / "content", checkout.ROOT / "templates")
    aligned, divergent = chart_descriptions(files["index.html"].decode("utf-8"))
    for d in (aligned, divergent):
        assert re.search(r"it is \d\.\d{4} after 10 rounds \(in proportion", d) and "falls from" not in d
    assert "Every round reaches every position, so each position has that bound." in aligned
    assert "Fewer rounds reach each later position" in divergent
    assert "position 2: –;" in divergent and "position 2: 0.0000" not in divergent  # one checkpoint: one TV each


def test_a_worst_round_faster_than_plain_decoding_changes_the_claims_about_slowness(tmp_path):
    text = cost_page(tmp_path, draft_step="0", verify_round="1/2", compare_draft_steps=["0"])  # worst: 1/(1/2) = 2×
    assert "both worked out below, including its worst case." in text
    assert "At the costs assumed here even that worst round beats plain decoding; in general, speculative decoding " \
           "loses to plain decoding whenever" in text
    assert "including the case where it is slower" not in text and "pays off only when" not in text


@pytest.mark.shipped
def test_the_colophon_claims_the_checks_power_only_for_drafts_the_checks_reach(tmp_path):
    """The power holds where the check command's 6,400,000 rounds reach every position often enough: the shipped
    divergent draft reaches its bonus position in 45/512 of rounds, 562,500, just enough for 0.005. A draft that
    never passes position 1 reaches nothing after it."""
    from speculative import checkout, pipeline

    dataset = pipeline.build_files(checkout.ROOT / "data" / "profiles.v1.json", checkout.ROOT / "content", checkout.ROOT / "templates")
    assert "at every position of these drafts;" in no_js_text(dataset["index.html"].decode("utf-8"))

    def disjoint(raw):
        raw["profiles"][1]["draft"][0] = ["0", "0", "4/8", "4/8", "0", "0"]
        raw["profiles"][1]["proposals"][0] = "sat"
    files = pipeline.build_files(edited_data(tmp_path, disjoint), checkout.ROOT / "content", checkout.ROOT / "templates")
    assert ("at every position of the drafts this project ships (these drafts reach some position too rarely for "
            "that);") in no_js_text(files["index.html"].decode("utf-8"))


def test_chance_in_both_authored_rounds_says_rounds(tmp_path):
    from speculative import checkout, pipeline

    def both(raw):  # the aligned draft's "on" at position 4 given q = 6/8 (p = 5/8): accepted with probability 5/6
        raw["profiles"][0]["draft"][3] = ["1/8", "0", "0", "6/8", "0", "1/8"]
        raw["profiles"][1]["draft"][1] = ["1/8", "1/8", "0", "2/8", "0", "4/8"]  # "mat" at 2: 1/2
    files = pipeline.build_files(edited_data(tmp_path, both), checkout.ROOT / "content", checkout.ROOT / "templates")
    text = no_js_text(files["index.html"].decode("utf-8"))
    assert "In the authored rounds of a closely aligned draft and a divergent draft, chance decides" in text


def test_one_drawn_round_is_called_the_one_not_the_first_1(tmp_path):
    from speculative import checkout, pipeline

    def one(raw):
        raw["drawn_rounds"] = 1
    files = pipeline.build_files(edited_data(tmp_path, one), checkout.ROOT / "content", checkout.ROOT / "templates")
    text = no_js_text(files["index.html"].decode("utf-8"))
    aligned = json.loads(files["trace.json"])["profiles"][0]
    chance = any(row["chance"] for row in aligned["drawn"][0]["frames"])
    assert "The same generator then drew the first round of each draft with proposals drawn from the draft" in text
    assert f"the one drawn round {'contains' if chance else 'does not contain'} a check that chance decides" in text
    assert "first 1 round" not in text and "of the 1 drawn round" not in text


@pytest.mark.parametrize("rounds", [1, 30])
def test_a_run_too_short_to_settle_is_not_said_to_settle(rounds, tmp_path):
    """With one or two checkpoints there is nothing to slide through and no line to draw; a bound of 1 or more
    checks nothing, so the table says so rather than "within"."""
    from speculative import checkout, pipeline

    files = pipeline.build_files(edited_data(tmp_path, lambda raw: raw["monte_carlo"].update(rounds=rounds)),
                              checkout.ROOT / "content", checkout.ROOT / "templates")
    text = no_js_text(files["index.html"].decode("utf-8"))
    assert "Slide Rounds" not in text and "on log–log axes it is a straight line" not in text
    assert "In these runs every position" not in text and "The bound shrinks as 1/√n for n rounds." in text
    conv = json.loads(files["trace.json"])["profiles"][0]["convergence"]
    bounds = [float(b) for b in conv["bound_text"][-1]]
    assert text.count("too few rounds") >= sum(b >= 1 for b in bounds)
    if rounds == 1:  # one round: every bound is 1 or more
        assert "after 1 round (in proportion" in text and "too few rounds" in text
        assert "<td>within" not in files["index.html"].decode("utf-8")


def test_the_distances_are_said_to_shrink_only_where_every_one_does(edited):
    _, trace, text = edited
    shrinks = True
    for p in trace["profiles"]:
        conv = p["convergence"]
        first, last = conv["tv_text"][0], conv["tv_text"][-1]
        shrinks &= all(float(b) < float(a) for a, b, n in zip(first, last, conv["reached"][0], strict=True) if n)
    assert ("In these runs every position’s distance is smaller after the last checkpoint than after the first" in text) \
        == shrinks
