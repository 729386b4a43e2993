"""optimize/links/link_search.py: the link weights searched offline ship only when, cross-validated,
they reach more gold pages; otherwise the current weights stay, and the line says why."""

from __future__ import annotations

import pytest

from optimize.links.link_search import LinkQuestion, fit_link_weights
from optimize.links.site import read_site
from program.thresholds import Thresholds
from tests.optimize.links.test_traversal import MAX_BYTES, cosines, page

TOPICS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
ONE_ROUND = dict(breadth_pages=3, max_breadth_rounds=1, max_breadth_pages=3)
BLIND = Thresholds(link_path_weight=0.0, link_title_weight=0.0, link_description_weight=0.0,
                   link_in_degree_weight=0.0, link_depth_weight=0.0, **ONE_ROUND)


@pytest.fixture
def setup(tmp_path):
    """A seed linking ten topic pages and five decoys whose names sort first: blind weights (all 0)
    fetch the decoys, any weight on the anchor text finds each question's topic page."""
    links = {f"Misc {n}": f"a-{n}.html" for n in range(5)} | {f"{t.title()} guide": f"z-{t}.html" for t in TOPICS}
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(page("Home", links))
    for name in [*links.values()]:
        (tmp_path / "site" / name).write_text(page(name))
    site = read_site(tmp_path / "site", MAX_BYTES)
    questions = [LinkQuestion(qid=t, question=f"What does the {t} guide say?", seed=site.url("index.html"),
                              gold=[f"z-{t}.html"], terms=[t], cosines=cosines(f"What does the {t} guide say?"))
                 for t in TOPICS]
    return site, questions, tmp_path / "trials"


def test_weights_that_reach_more_gold_pages_held_out_ship(setup):
    site, questions, folder = setup
    fit = fit_link_weights(site, questions, BLIND, trials=20, latency_weight=0.3, seed=1, folder=folder, progress=False)
    assert fit.reach_current == 0.0 and fit.reach_chosen == 1.0
    assert fit.ships and fit.cv_low > 0 and fit.line.startswith("link weights: shipping the searched weights")
    assert fit.chosen["link_title_weight"] > 0 or fit.chosen["link_description_weight"] > 0
    assert [r.reached_current for r in fit.rows] == [None] * 10 and all(r.reached_chosen for r in fit.rows)


def test_weights_that_already_reach_every_gold_page_stay(setup):
    site, questions, folder = setup
    current = Thresholds(**ONE_ROUND)
    fit = fit_link_weights(site, questions, current, trials=20, latency_weight=0.3, seed=1, folder=folder, progress=False)
    assert fit.reach_current == 1.0 and not fit.ships
    assert fit.line.startswith("link weights: keeping the current weights") or "chose the current" in fit.line


def test_a_killed_search_resumes_with_its_trials(setup):
    site, questions, folder = setup
    fit_link_weights(site, questions, BLIND, trials=5, latency_weight=0.3, seed=1, folder=folder, progress=False)
    fit = fit_link_weights(site, questions, BLIND, trials=8, latency_weight=0.3, seed=1, folder=folder, progress=False)
    assert fit.trials == 8
