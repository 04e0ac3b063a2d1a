"""Where the round player and the accept-test lab open, on every valid data file.

The rule: the player opens on the first profile, in file order, whose authored round has a check that chance decides
(an accept probability strictly between 0 and 1), else on the first profile; the lab on that round's check chance
decides (its rejection, if chance decides one, so u shows on the rejecting side), else on the first proposable token
in the file that chance decides, else on the first profile's first position. The tests work the rule out from the
trace's own facts (each position's accept probabilities and the round's slot states), not from the analysis's flags,
and a link to a frame still opens on its own frame."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from html import unescape

import pytest
from labkit import lab
from playwright.sync_api import Page, expect

U_MAX = Fraction(999, 1000)  # the lab's u slider runs 0 to 0.999


def accept(p: dict, pos: int, token: int) -> Fraction | None:
    """Returns profile trace p's accept probability of `token` at 1-based position `pos`; None where q = 0."""
    a = p["positions"][pos - 1]["accept"][token]
    return None if a is None else Fraction(a)


def chance_checks(p: dict) -> list[dict]:
    """Returns the checks of p's authored round that chance decides, in order, each with its frame number, position,
    token, accept probability, draw u (as shown) and verdict."""
    rnd, out = p["walk"], []
    for i, f in enumerate(rnd["frames"], start=1):
        if f["kind"] != "verify":
            continue
        x = rnd["proposals"][f["pos"] - 1]
        a = accept(p, f["pos"], x)
        assert a is not None  # a proposal is a token the draft can propose
        if 0 < a < 1:
            out.append({"frame": i, "pos": f["pos"], "token": x, "accept": a, "u": f["u"],
                        "verdict": f["slots"][f["pos"] - 1]})
    return out


def opening_index(trace: dict) -> int:
    return next((i for i, p in enumerate(trace["profiles"]) if chance_checks(p)), 0)


def lab_opening(trace: dict) -> tuple[str, int]:
    """Returns ("profile id/position", token) the lab opens on, by the rule."""
    p = trace["profiles"][opening_index(trace)]
    checks = chance_checks(p)
    if checks:
        c = next((c for c in checks if c["verdict"] == "rejected"), checks[0])
        return f"{p['id']}/{c['pos']}", c["token"]
    for q in trace["profiles"]:
        for n, pos in enumerate(q["positions"], start=1):
            for y in range(len(pos["accept"])):
                a = accept(q, n, y)
                if a is not None and 0 < a < 1:
                    return f"{q['id']}/{n}", y
    first = trace["profiles"][0]
    return f"{first['id']}/1", next(y for y in range(len(first["positions"][0]["accept"])) if accept(first, 1, y) is not None)


def test_the_player_opens_on_the_first_authored_round_chance_decides(trace):
    assert trace["walkthrough"]["profile"] == opening_index(trace)


def test_the_lab_opens_on_that_rounds_check_chance_decides_with_u_on_the_rejecting_side(trace):
    d, (where, token) = trace["lab"], lab_opening(trace)
    assert (d["where"], d["token"]) == (where, token)
    pid, pos = where.split("/")
    p = next(p for p in trace["profiles"] if p["id"] == pid)
    assert (trace["profiles"].index(p), d["pos"]) == (d["profile"], int(pos))
    a, u = accept(p, int(pos), token), Fraction(d["u"])
    assert 0 <= u <= U_MAX and len(d["u"].split(".")[-1]) == 3  # a value the slider holds
    if a is not None and 0 < a <= U_MAX:
        assert u >= a  # the check rejects: the residual shows, and the reader can drag u into the accept region
    own = next((c for c in chance_checks(p) if c["verdict"] == "rejected" and (c["pos"], c["token"]) == (int(pos), token)),
               None) if p is trace["profiles"][opening_index(trace)] else None
    if own is not None and a is not None and a + Fraction(1, 1000) <= Fraction(own["u"]) <= U_MAX - Fraction(1, 1000):
        assert abs(Fraction(own["u"]) - u) <= Fraction(1, 2000)  # the round's own draw, as the slider holds it


def test_the_page_without_scripting_holds_the_opening_state(built_site, trace):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    p = trace["profiles"][opening_index(trace)]
    checked = re.findall(r'<input type="radio" name="walkthrough-profile" value="([^"]*)" data-walkthrough-profile checked>', html)
    assert [unescape(v) for v in checked] == [p["id"]]
    n = len(p["walk"]["frames"])
    assert re.search(rf'id="walkthrough-frame" min="1" max="{n}"', html)
    assert re.search(rf"data-walkthrough-counter>Frame 1 of {n}<", html)
    selected = re.findall(r'<option value="([^"]*)" selected>', html.split('id="lab-position"')[1].split("</select>")[0])
    assert [unescape(v) for v in selected] == [trace["lab"]["where"]]


def test_the_generated_files_open_on_every_kind_of_round():
    """Between them, the files the suite runs on open the player on the first profile and on a later one, on a
    rejection by chance and a pass by chance, and on a file whose authored rounds chance decides nowhere."""
    from speculative.analysis import explain
    from speculative.profiles import parse

    from . import valid_data
    from .conftest import FIXTURE

    seen = set()
    for name in valid_data.NAMES_OF_FILES:
        ex = explain(parse(valid_data.written(valid_data.variant(name, FIXTURE)), name))
        check = ex.results[ex.opening].walk_chance_check
        seen.add(("first" if ex.opening == 0 else "later", None if check is None else check.verdict))
    assert {("first", "rejected"), ("first", "accepted"), ("later", "rejected"), ("first", None)} <= seen, seen


# --- in the browser: the data file's page ----------------------------------------------------------------------


def counter(page: Page):
    return page.locator("[data-walkthrough] [data-walkthrough-counter]")


@pytest.mark.browser
def test_the_player_opens_on_the_opening_profile_and_a_frame_link_on_its_own(page: Page, page_url, trace):
    p = trace["profiles"][trace["walkthrough"]["profile"]]
    page.goto(page_url)
    expect(page.get_by_role("radio", name=p["name"], exact=True)).to_be_checked()
    expect(counter(page)).to_have_text(f"Frame 1 of {len(p['walk']['frames'])}")
    others = [q for q in trace["profiles"] if q is not p]
    for q in others[:1]:  # an old link, with the walkthrough/ prefix or without it, opens its own profile
        n = min(3, len(q["walk"]["frames"]))
        for address in (f"#walkthrough/{q['id']}/{n}", f"#{q['id']}/{n}"):
            page.goto("about:blank")
            page.goto(page_url + address)
            expect(page.get_by_role("radio", name=q["name"], exact=True)).to_be_checked()
            expect(counter(page)).to_have_text(f"Frame {n} of {len(q['walk']['frames'])}")


def u_mark_side(page: Page) -> str:
    """Returns where the accept bar draws u: "inside" the accept region or "outside" it, from the boxes on screen."""
    boxes = page.evaluate("""() => { const bar = document.querySelector('[data-walkthrough-bar]');
      const box = s => bar.querySelector(s).getBoundingClientRect();
      const u = box('.fig-accept-tick'), yes = box('.fig-accept-yes');
      return [u.left + u.width / 2, yes.left, yes.right]; }""")
    centre, left, right = boxes
    return "inside" if left <= centre < right else "outside"


@pytest.mark.browser
@pytest.mark.shipped
def test_the_overconfident_round_shows_a_check_kept_and_one_rejected_by_chance(page: Page, page_url, trace):
    """Stepped through in the player, the opening round shows u below the accept probability and kept, then u at or
    above it and rejected, each with its draw drawn inside or outside the accept region."""
    page.emulate_media(reduced_motion="reduce")  # the bar's marker moves without a transition
    p = trace["profiles"][trace["walkthrough"]["profile"]]
    checks = chance_checks(p)
    assert p["id"] == "overconfident" and [(c["pos"], c["verdict"]) for c in checks] == [(2, "accepted"), (3, "rejected")]
    page.goto(page_url)
    n, test, frame = len(p["walk"]["frames"]), page.locator("[data-walkthrough-test]"), 1
    for c in checks:
        while frame < c["frame"]:
            page.get_by_role("button", name="Next step").click()
            frame += 1
            expect(counter(page)).to_have_text(f"Frame {frame} of {n}")
        kept = c["verdict"] == "accepted"
        assert (Fraction(c["u"]) < c["accept"]) is kept  # the trace's own draw, against the exact threshold
        expect(test.locator("[data-walkthrough-u]")).to_have_text(c["u"])
        expect(test.locator("[data-walkthrough-verdict] strong")).to_have_text("Accepted" if kept else "Rejected")
        expect(test.locator("[data-walkthrough-chance]")).to_be_visible()
        expect(page.locator("[data-walkthrough-caption]")).to_contain_text(
            f"u = {c['u']} is {'below' if kept else 'not below'} {c['accept']}")
        assert u_mark_side(page) == ("inside" if kept else "outside")
    expect(page.locator("[data-walkthrough-dist]")).to_be_visible()  # the rejection draws its replacement
    expect(page.locator("[data-walkthrough-dist-draw] .fig-accept-tick")).to_be_visible()


@pytest.mark.browser
@pytest.mark.shipped
def test_the_lab_opens_on_the_rejection_by_chance_and_u_across_the_threshold_flips_it(page: Page, page_url, trace):
    d = trace["lab"]
    assert (d["where"], d["token"], d["u"]) == ("overconfident/3", trace["vocabulary"].index("on"), "0.710")
    page.goto(page_url)
    pid, n = d["where"].split("/")
    a = accept(next(p for p in trace["profiles"] if p["id"] == pid), int(n), d["token"])
    assert a == Fraction(1, 2)
    expect(lab(page).get_by_label("Position", exact=True)).to_have_value(d["where"])
    expect(lab(page).get_by_role("radio", name=trace["vocabulary"][d["token"]], exact=True)).to_be_checked()
    u, verdict = lab(page).get_by_label("Uniform draw u"), lab(page).locator("[data-lab-verdict] strong")
    expect(u).to_have_attribute("aria-valuetext", f"u = {d['u']}")
    expect(verdict).to_have_text("Rejected")
    expect(lab(page).locator("[data-lab-residual]")).to_be_visible()
    for value, shown in ((a - Fraction(1, 1000), "Accepted"), (a, "Rejected"), (Fraction(1, 1000), "Accepted"),
                         (U_MAX, "Rejected")):
        u.fill(f"{float(value):.3f}")
        expect(verdict).to_have_text(shown)


def test_the_trace_names_the_opening_in_plain_json(trace):
    assert json.loads(json.dumps(trace["walkthrough"])) == {"profile": trace["walkthrough"]["profile"]}
