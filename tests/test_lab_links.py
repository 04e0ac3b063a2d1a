"""The "try it in the accept test" links carry the whole lab state they mean to show: profile/position/token/u,
with a u that rejects wherever a check can reject, so the lab opens on the residual the sentence talks about."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from speculative.figures.positions import lab_link, lab_u
from speculative.view import residual_example


@pytest.fixture(scope="session")
def html(built_site) -> str:
    return (built_site / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("accept, u", [(Fraction(7, 8), "0.938"), (Fraction(1, 2), "0.750"), (Fraction(0), "0.500"),
                                       (Fraction(1), "0.500"), (Fraction(999, 1000), "0.999"),
                                       (Fraction(9995, 10000), "0.500")])
def test_the_links_u_rejects_when_the_slider_has_a_rejecting_u(accept, u):
    assert lab_u(accept) == u
    if Fraction(u) >= accept:  # the lab's test is u < accept
        assert 0 < accept <= Fraction(999, 1000) or accept == 0


def test_every_link_on_the_page_opens_a_rejecting_u_where_chance_decides(html, explained):
    links = re.findall(r'data-lab-open="([^"]*)"', html)
    assert links
    ids = {r.profile.id: r for r in explained.results}
    for link in links:
        pid, pos, token, u = link.split("/")
        accept = ids[pid].stats.records[int(pos) - 1].tokens[int(token)].accept
        assert lab_link(pid, int(pos), int(token), accept) == link
        if 0 < accept < 1:
            assert accept <= Fraction(u) <= Fraction(999, 1000), link


@pytest.mark.shipped
def test_the_residual_example_link_opens_the_lab_rejecting_with_its_zero_residual(html, explained):
    ex = residual_example(explained)
    assert ex is not None, "the shipped data has a token the target produces whose residual is 0"
    pid, pos, token, u = str(ex["open"]).split("/")
    t = next(r for r in explained.results if r.profile.id == pid).stats.records[int(pos) - 1].tokens[int(token)]
    assert 0 < t.p < t.q and Fraction(u) >= t.accept  # rejected, so the residual (0 at this token) is on screen
    assert f'data-lab-open="{ex["open"]}"' in html
