"""The interactive figures in a real Chromium from file://: the accept-test lab, drawn rounds, convergence and the
speedup explorer, each driven by its accessible names and checked against the trace."""

from __future__ import annotations

import json
import math

import pytest
from labkit import chi_square_p, draw, lab, route_shares, seeded, tally_counts
from playwright.sync_api import Page, expect

from speculative.strings import LAB

from .conftest import axe_violations

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def trace(built_site) -> dict:
    return json.loads((built_site / "trace.json").read_text(encoding="utf-8"))


def position_of(trace: dict, where: str) -> dict:
    pid, n = where.split("/")
    return next(p for p in trace["profiles"] if p["id"] == pid)["positions"][int(n) - 1]


def test_lab_opens_on_the_first_proposal_chance_decides_with_u_on_the_rejecting_side(page: Page, page_url, trace):
    page.goto(page_url)
    d = trace["lab"]
    pos = position_of(trace, d["where"])
    assert 0 < pos["accept_f"][d["token"]] < 1
    expect(lab(page).get_by_label("Position", exact=True)).to_have_value(d["where"])
    expect(lab(page).get_by_role("radio", name=trace["vocabulary"][d["token"]], exact=True)).to_be_checked()
    expect(lab(page).locator("[data-lab-verdict]")).to_contain_text("Rejected")
    expect(lab(page).locator("[data-lab-residual]")).to_be_visible()


@pytest.mark.parametrize("where, shown", [("{last}/99", "{last}/{k}"), ("{last}/0", "{last}/1"),
                                           ("{nobody}/2", None), ("", None)])
def test_the_lab_clamps_a_position_it_is_given(pages, page_url, trace, where, shown):
    """{last} is the last profile's id, {k} its number of positions, {nobody} an id no profile has."""
    ids = {p["id"] for p in trace["profiles"]}
    names = {"last": trace["profiles"][-1]["id"], "k": len(trace["profiles"][-1]["positions"]),
             "nobody": next(n for n in ("nobody", "nobody-else", "no-one") if n not in ids)}
    where, shown = where.format(**names), shown and shown.format(**names)
    page = pages.open(page_url, "window.__playerDebug = true")
    page.wait_for_function("() => window.__player")  # set once every figure has started
    page.evaluate("where => window.__player.figures.lab.update({where})", where)
    expect(lab(page).get_by_label("Position", exact=True)).to_have_value(shown or trace["lab"]["where"])
    expect(lab(page).get_by_role("radio").first).to_be_visible()
    page.close()


def test_u_just_below_and_just_above_the_threshold_flips_the_verdict(page: Page, page_url, trace):
    page.goto(page_url)
    d = trace["lab"]
    pos, x = position_of(trace, d["where"]), d["token"]
    a = pos["accept_f"][x]
    u = lab(page).get_by_label("Uniform draw u")
    verdict = lab(page).locator("[data-lab-verdict]")
    # the slider's grid is 0.001: the last point below a, and the first at or above it (a itself when a is on it,
    # as eighths are: u < a is the rule, so u equal to a is a rejection)
    below, at = math.floor(a * 1000 - 1e-9) / 1000, math.ceil(a * 1000 - 1e-9) / 1000
    u.fill(f"{below:.3f}")
    expect(verdict).to_contain_text("Accepted")
    expect(verdict).to_contain_text(pos["worked"][x])
    expect(lab(page).locator("[data-lab-residual]")).to_be_hidden()
    u.fill(f"{at:.3f}")
    expect(verdict).to_contain_text("Rejected")
    u.fill(f"{at + 0.001:.3f}")
    expect(verdict).to_contain_text("Rejected")


def test_the_replacement_draw_lands_on_every_residual_segment_and_never_on_a_zero_one(page: Page, page_url, trace):
    page.goto(page_url)
    vocab = trace["vocabulary"]
    for p in trace["profiles"]:
        for n, pos in enumerate(p["positions"], start=1):
            rejectable = [y for y, a in enumerate(pos["accept_f"]) if a is not None and a < 1]
            if not rejectable:
                continue
            lab(page).get_by_label("Position", exact=True).select_option(f"{p['id']}/{n}")
            lab(page).get_by_role("radio", name=vocab[rejectable[0]], exact=True).check()
            lab(page).get_by_label("Uniform draw u").fill("0.999")
            low = 0.0
            for y, cut in enumerate(pos["cuts"]):
                if cut > low + 1e-9:
                    lab(page).get_by_label("Replacement draw").fill(f"{min((low + cut) / 2, 0.999):.3f}")
                    expect(lab(page).locator("[data-lab-rep]")).to_contain_text(f"“{vocab[y]}” is committed instead")
                    assert pos["residual"][y] not in (None, "0")
                low = cut
            assert all(pos["residual"][y] in (None, "0") for y in rejectable if pos["accept_f"][y] < 1)


def test_position_select_lists_every_profiles_positions(page: Page, page_url, trace):
    page.goto(page_url)
    options = lab(page).get_by_label("Position", exact=True).locator("option")
    expect(options).to_have_count(sum(len(p["positions"]) for p in trace["profiles"]) + 1)
    expect(options.last).to_have_text("Your own position")


def closed_form(rnd: dict) -> int:
    """1 propose + one verify per checked position + 1 bonus if all passed + 1 done, from the round's own slots."""
    done = rnd["frames"][-1]["slots"][:-1]
    checked = sum(state in ("accepted", "rejected") for state in done)
    return 1 + checked + (rnd["bonus"] is not None) + 1


def test_draw_another_round_walks_every_drawn_round_and_wraps(page: Page, page_url, trace):
    page.goto(page_url)
    player = page.locator("[data-walkthrough]")
    for p in trace["profiles"]:
        player.get_by_role("radio", name=p["name"]).check()
        player.get_by_role("radio", name="The authored walkthrough").check()
        drawn = p["drawn"]
        # The clicks and the counters' texts in one call: one round trip, not two waits per round.
        seen = player.evaluate("""(player, clicks) => {
            const draw = player.querySelector('[data-walkthrough-action="draw"]'), out = [];
            for (let i = 0; i < clicks; i++) {
                draw.click();
                out.push([player.querySelector('[data-walkthrough-round-counter]').textContent,
                          player.querySelector('[data-walkthrough-counter]').textContent]);
            }
            return out;
        }""", len(drawn) + 1)
        assert seen == [[f"Drawn round {(i - 1) % len(drawn) + 1} of {len(drawn)}", f"Frame 1 of {closed_form(rnd)}"]
                        for i, rnd in enumerate(drawn + drawn[:1], start=1)]
        expect(player.get_by_role("radio", name="Rounds drawn from the draft")).to_be_checked()
        player.get_by_role("radio", name="The authored walkthrough").check()
        expect(player.locator("[data-walkthrough-round-counter]")).to_have_text("")


@pytest.mark.parametrize("hash_, round_, frame", [("#walkthrough/{last}/r{r}/3", 7, 3), ("#walkthrough/{last}/4", 0, 4),
                                                   ("#{first}/r{r}/1", 24, 1)])
def test_deep_links_open_the_right_round_and_frame(page: Page, page_url, trace, hash_, round_, frame):
    """{first} and {last} are the first and last profiles' ids; {r} is round_, or the file's last drawn round when it
    draws fewer (the shipped file draws 24)."""
    first, last = trace["profiles"][0], trace["profiles"][-1]
    p = first if "{first}" in hash_ else last
    round_ = min(round_, len(p["drawn"]))
    hash_ = hash_.format(first=first["id"], last=last["id"], r=round_)
    rnd = p["drawn"][round_ - 1] if round_ else p["walk"]
    frame = min(frame, len(rnd["frames"]))
    page.goto(page_url + hash_)
    player = page.locator("[data-walkthrough]")
    expect(player.locator("[data-walkthrough-counter]")).to_have_text(f"Frame {frame} of {len(rnd['frames'])}")
    counter = f"Drawn round {round_} of {len(p['drawn'])}" if round_ else ""
    expect(player.locator("[data-walkthrough-round-counter]")).to_have_text(counter)
    name = "Rounds drawn from the draft" if round_ else "The authored walkthrough"
    expect(player.get_by_role("radio", name=name)).to_be_checked()


def test_a_check_that_chance_decides_is_marked(page: Page, page_url, trace):
    where = next(((p, i, j) for p in trace["profiles"] for i, rnd in enumerate(p["drawn"], start=1)
                  for j, row in enumerate(rnd["frames"], start=1) if row["chance"]), None)
    if where is None:
        pytest.skip("chance decides no check in this data file's drawn rounds")
    p, i, j = where
    page.goto(f"{page_url}#{p['id']}/r{i}/{j}")
    expect(page.locator("[data-walkthrough] [data-walkthrough-chance]")).to_contain_text("Decided by chance")
    # a verify frame of the authored walk that chance does not decide (on the shipped data frame 2), else its
    # first frame, which proposes and checks nothing
    sure = [n for n, row in enumerate(p["walk"]["frames"], start=1) if row["kind"] == "verify" and not row["chance"]]
    page.goto(f"{page_url}#{p['id']}/{(sure or [1])[0]}")
    expect(page.locator("[data-walkthrough] [data-walkthrough-chance]")).to_be_hidden()


def test_a_verify_frame_lights_up_its_position_block_and_shows_its_bars(page: Page, page_url, trace):
    # the last profile's check of its second position, or of its first when its walk checks only one
    pid = trace["profiles"][-1]["id"]
    n, pos = [(n, row["pos"]) for n, row in enumerate(trace["profiles"][-1]["walk"]["frames"], start=1)
              if row["kind"] == "verify"][:2][-1]
    page.goto(page_url + f"#{pid}/{n}")
    block = page.locator(f'tbody[data-position-block="{pid}-{pos}"]')
    expect(block).to_have_class("position is-current")
    # the chart joins the page only when it comes near the viewport (print.js's startNear); the player marks it then
    block.scroll_into_view_if_needed()
    expect(page.locator(f'path[data-position-block="{pid}-{pos}"]')).to_have_class("ch-band is-current")  # the chart's row
    expect(page.locator("[data-walkthrough] [data-walkthrough-bars] .bar-row")).to_have_count(len(trace["vocabulary"]))
    page.goto(page_url + f"#{pid}/1")
    expect(page.locator("[data-position-block].is-current")).to_have_count(0)


def test_a_positions_block_link_opens_the_lab_there(page: Page, page_url, trace):
    # the last profile's third position, or its last when it has fewer
    where = f"{trace['profiles'][-1]['id']}/{min(3, len(trace['profiles'][-1]['positions']))}"
    page.goto(page_url)
    link = page.locator(f'.positions-profile [data-lab-open^="{where}/"]')
    link.click()
    expect(lab(page).get_by_label("Position", exact=True)).to_have_value(where)
    token = int(link.get_attribute("data-lab-open").split("/")[2])
    proposed = lab(page).get_by_role("group", name="Proposed token").get_by_role("radio", checked=True)
    expect(proposed).to_have_value(str(token))  # its own proposal, not the last one
    expect(lab(page)).to_be_in_viewport()


def test_the_rounds_slider_shows_the_trace_tv_at_every_checkpoint(page: Page, page_url, trace):
    page.goto(page_url)
    for i, p in enumerate(trace["profiles"]):
        fig = page.locator(f'[data-convergence="{i}"]')
        conv = p["convergence"]
        for pos in (1, len(p["positions"]) + 1):
            fig.get_by_label("Position", exact=True).select_option(str(pos))
            for c, n in enumerate(conv["checkpoints"]):
                fig.get_by_label("Rounds").fill(str(c))
                readout = fig.locator("[data-convergence-readout]")
                count = conv["reached"][c][pos - 1]
                expect(readout).to_contain_text(f"After {n:,} rounds: {count:,} round{'' if count == 1 else 's'} committed")
                expect(fig.locator("[data-convergence-out]")).to_have_text(f"{n:,}")
                expect(readout).to_contain_text(f"Total variation from the target {conv['tv_text'][c][pos - 1]}")
                if not conv["vacuous"][c][pos - 1]:
                    expect(readout).to_contain_text(conv["bound_text"][c][pos - 1])


def test_the_tv_chart_marks_the_rounds_shown_and_follows_the_slider(page: Page, page_url, trace):
    page.goto(page_url)
    conv = trace["profiles"][0]["convergence"]
    fig, now = page.locator('[data-convergence="0"]'), page.locator(".convergence").first.locator(".ch-now")
    xs = now.get_attribute("data-xs").split()
    for c in (0, len(xs) // 2, len(xs) - 1):
        fig.get_by_label("Rounds").fill(str(c))
        n = conv["checkpoints"][c]
        expect(now.locator("text")).to_have_text(f"{n:,}" if n < 1000 else f"{n // 1000:,}k")
        expect(now).to_have_attribute("transform", f"translate({xs[c]} 0)")
        box = now.bounding_box()
        assert box["width"] > 0 and box["height"] > 100  # a visible line the height of the plot, not a hidden hook
    assert page.evaluate("getComputedStyle(document.querySelector('.ch-now path')).stroke") != "none"


def test_figure_controls_work_from_the_keyboard(page: Page, page_url):
    page.goto(page_url)
    u = lab(page).get_by_label("Uniform draw u")
    u.focus()
    before = u.input_value()
    page.keyboard.press("ArrowLeft")
    expect(u).not_to_have_value(before)
    rounds = page.locator('[data-convergence="0"]').get_by_label("Rounds")
    rounds.focus()
    page.keyboard.press("Home")
    expect(page.locator('[data-convergence="0"] [data-convergence-readout]')).to_contain_text("After 10 rounds")
    k = page.locator(".explorer").get_by_label("Positions drafted")
    k.focus()
    page.keyboard.press("Home")
    expect(page.locator("[data-explorer-readout]")).to_contain_text("With 1 position drafted")
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_in_the_figures_default_or_changed(page: Page, page_url, scheme):
    page.emulate_media(color_scheme=scheme)
    page.goto(page_url)
    found = axe_violations(page, ["#lab", ".convergence", ".explorer"])
    lab(page).get_by_label("Uniform draw u").fill("0.100")
    page.locator('[data-convergence="0"]').get_by_label("Rounds").fill("2")
    dearest = lambda select: select.select_option(str(select.locator("option").count() - 1))  # noqa: E731
    dearest(page.get_by_label("Draft step cost"))
    page.locator(".explorer").get_by_label("Rule", exact=True).select_option("exact-match")
    dearest(page.get_by_label("Verification cost per position"))
    found += axe_violations(page, ["#lab", ".convergence", ".explorer"])
    assert found == []


@pytest.mark.parametrize("width, smallest", [(1280, 14), (360, 14)])
def test_chart_text_stays_at_its_minimum_size(page: Page, page_url, width, smallest):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(page_url)
    sizes = page.evaluate("""() => [...document.querySelectorAll('svg.chart')].flatMap(svg => {
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
    })""")
    assert sizes and min(sizes) >= smallest, f"smallest chart text {min(sizes):.1f} px at {width} px"


def test_no_js_text_names_no_control_that_is_not_there(browser, page_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(page_url)
    text = page.locator("main").inner_text()
    for lane in page.locator(".generator-text").all_inner_texts():  # the n-gram models' own writing, counted from this
        text = text.replace(lane, "")  # prose, may repeat any phrase of it
    for phrase in ("then drag u", "Slide Rounds", "Switch to Rounds drawn", "the explorer draws", "step through it with the buttons"):
        assert phrase not in text, phrase
    expect(page.get_by_text("The interactive page has a lab here")).to_be_visible()
    context.close()


# --- the lab's draws and tally (issue 16, part 1) ---------------------------------------------------------


def test_draw_u_moves_the_slider_and_the_verdict_follows_it(pages, page_url, trace):
    page = seeded(pages, page_url)
    d = trace["lab"]
    a = position_of(trace, d["where"])["accept_f"][d["token"]]
    seen = set()
    for _ in range(12):
        lab(page).get_by_role("button", name="Draw u").click()
        u = float(lab(page).get_by_label("Uniform draw u").input_value())
        verdict = "Accepted" if u < a else "Rejected"
        expect(lab(page).locator("[data-lab-verdict]")).to_contain_text(f"{verdict}: u = {u:.3f}")
        expect(lab(page).locator("[data-lab-residual]")).to_be_visible(visible=verdict == "Rejected")
        seen.add(verdict)
    assert seen == {"Accepted", "Rejected"}
    page.close()


@pytest.mark.parametrize("width", [360, 1280])
def test_draw_u_and_the_buttons_below_it_stay_put_whatever_the_verdict(pages, page_url, trace, width):
    """A first-time reader's review: the replacement draw appeared on a rejection and went on an acceptance, so the
    buttons under it jumped by its height between clicks. Where u can reject, its room stays, as tall as the longest
    verdict and the longest replacement sentence need, on a phone too."""
    page = seeded(pages, page_url)
    page.set_viewport_size({"width": width, "height": 900})
    button, seen, tops = lab(page).get_by_role("button", name="Draw u"), set(), set()
    for _ in range(12):
        button.click()
        seen.add(lab(page).locator("[data-lab-verdict] strong").inner_text())
        # from the lab's own top: a figure above it that starts late moves the whole lab, not the button within it
        tops.add(round(button.bounding_box()["y"] - lab(page).bounding_box()["y"], 1))
    assert seen == {"Accepted", "Rejected"} and len(tops) == 1, (seen, tops)
    page.close()


def test_a_planted_wrong_cut_point_is_caught(pages, page_url, trace):
    page = seeded(pages, page_url)
    where = trace["lab"]["where"]
    # shift the first cut of the draft's cumulative q that a token owns by 0.02: the draws then follow a wrong q
    page.evaluate("""where => { const [id, n] = where.split('/');
      const pos = window.__player.figures.lab.trace.profiles.find(p => p.id === id).positions[n - 1];
      const y = pos.q_cuts.findIndex(c => c > 0); pos.q_cuts[y] += 0.02; }""", where)
    draw(page, 10)
    assert chi_square_p(tally_counts(page), route_shares(position_of(trace, where))) < 1e-6
    page.close()


def test_the_tally_bound_is_the_analysis_bound_and_reset_clears_it(pages, page_url, trace):
    from speculative.sampler import tv_bound

    page = seeded(pages, page_url)
    readout = lab(page).locator("[data-lab-tally-readout]")
    lab(page).get_by_role("button", name="Draw 100 times").click()
    lab(page).get_by_role("button", name="Draw 10,000 times").click()
    expect(readout).to_contain_text("10,100 draws")
    expect(readout).to_contain_text(f"the bound {tv_bound(10_100, len(trace['vocabulary'])):.4f}")
    assert sum(a + r for a, r in tally_counts(page)) == 10_100
    lab(page).get_by_role("button", name="Reset tally").click()
    expect(readout).to_contain_text("No draws yet")
    expect(lab(page).locator("[data-lab-tally] table")).to_have_count(0)
    page.close()


def test_a_try_it_link_opens_the_lab_and_back_returns_to_the_link(page: Page, page_url, trace):
    """The link jumps far down the page (a reader's review), so the lab offers a way back to the very link."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(page_url)
    links = page.get_by_role("link", name="try it in the accept test")
    link = links.nth(min(3, links.count() - 1))  # the fourth on the shipped data; the last when a file has fewer
    where = (link.get_attribute("data-lab-open") or "").split("/")
    link.click()
    expect(lab(page).get_by_label("Position", exact=True)).to_have_value(f"{where[0]}/{where[1]}")
    back = lab(page).get_by_role("link", name=LAB["back"])  # the build writes it
    expect(back).to_be_visible()
    expect(link).not_to_be_in_viewport()
    back.click()
    expect(link).to_be_in_viewport()
    expect(link).to_be_focused()
    expect(back).to_be_hidden()
