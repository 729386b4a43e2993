"""optimize/links: a site folder read as breadth expansion sees it, and one question's traversal
replayed offline with the loop's own link scoring."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest

from optimize.links.site import read_site
from optimize.links.traversal import Cosines, TextVectors, traverse
from program.retrieval.breadth import gather
from program.retrieval.links import Link
from program.thresholds import Thresholds

MAX_BYTES = 5 * 2**20


def bag_of_words(texts: list[str]) -> list[np.ndarray]:
    """A stand-in for the dense model: words hashed into 256 dims, so cosine follows shared words."""
    vectors = []
    for text in texts:
        v = np.zeros(256)
        for word in re.findall(r"[a-z]+", text.lower()):
            v[int(hashlib.md5(word.encode()).hexdigest(), 16) % 256] += 1
        vectors.append(v / (np.linalg.norm(v) or 1))
    return vectors


def cosines(question: str) -> Cosines:
    return Cosines(bag_of_words([question])[0], TextVectors(bag_of_words))


def page(title: str, links: dict[str, str] = {}) -> str:  # noqa: B006 - read only
    anchors = "".join(f'<li><a href="{href}">{text}</a></li>' for text, href in links.items())
    return f"<html><body><h1>{title}</h1><p>Text.</p><h2>See also</h2><ul>{anchors}</ul></body></html>"


SITE = {
    "docs/index.html": page("Widget documentation", {"Valve parts": "valves.html", "Gears": "gears.html",
                                                     "Sprockets": "sprockets.html", "Contact us": "contact.html",
                                                     "Status": "https://status.example.com/"}),
    "docs/valves.html": page("Valves", {"Valve flange torque": "flange-specs.html", "Valve history": "history.html"}),
    "docs/flange-specs.html": page("Quorvex flange specifications"),
    "docs/gears.html": page("Gears"),
    "docs/sprockets.html": page("Sprockets"),
    "docs/contact.html": page("Contact"),
    "docs/history.html": page("Valve history"),
    "docs/notes.md": "# Notes\n\n## Parts\n\nSee [the valves](valves.html).\n",
}
QUESTION = "What torque does the valve flange need?"
GOLD = ["docs/flange-specs.html"]


@pytest.fixture
def site(tmp_path):
    for name, text in SITE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return read_site(tmp_path, MAX_BYTES)


def test_a_site_is_its_pages_links_resolved_as_if_served(site):
    index = site.pages[site.url("docs/index.html")]
    assert [link.url for link in index][:2] == [site.url("docs/valves.html"), site.url("docs/gears.html")]
    assert index[0].anchor == "Valve parts" and index[0].description == "See also"
    assert [(link.url, link.description) for link in site.pages[site.url("docs/notes.md")]] == [
        (site.url("docs/valves.html"), "Parts")]


def test_a_page_over_the_ingest_limit_is_left_out(tmp_path):
    (tmp_path / "big.html").write_text(page("Big") + " " * 2048)
    (tmp_path / "small.html").write_text(page("Small"))
    pages = [url for url in read_site(tmp_path, 1024).pages if url.endswith(".html")]
    assert pages == [read_site(tmp_path, MAX_BYTES).url("small.html")]


def test_a_folder_with_no_page_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no markdown or HTML page"):
        read_site(tmp_path, MAX_BYTES)


def test_the_gold_page_two_links_away_is_reached_in_the_second_round(site):
    t = Thresholds(breadth_pages=1, max_breadth_rounds=2)
    walk = traverse(site, site.url("docs/index.html"), cosines(QUESTION), ["torque", "valve", "flange"], GOLD, t)
    assert walk.fetched == (site.url("docs/valves.html"), site.url("docs/flange-specs.html"))
    assert walk.reached_at == 2 and walk.pages_spent == 2


def test_one_round_is_not_enough_and_every_page_it_fetched_is_spent(site):
    t = Thresholds(breadth_pages=3, max_breadth_rounds=1)
    walk = traverse(site, site.url("docs/index.html"), cosines(QUESTION), ["torque"], GOLD, t)
    assert walk.reached_at is None and walk.pages_spent == 3


def test_the_page_budget_caps_the_rounds(site):
    t = Thresholds(breadth_pages=5, max_breadth_rounds=3, max_breadth_pages=6)
    walk = traverse(site, site.url("docs/index.html"), cosines("gears sprockets contact status"), [], GOLD, t)
    assert len(walk.fetched) == 6


def test_a_link_off_the_site_spends_a_page_and_adds_none(site):
    t = Thresholds(breadth_pages=1, max_breadth_rounds=2)
    walk = traverse(site, site.url("docs/index.html"), cosines("status"), [], GOLD, t)
    # as in the loop: a failed fetch is not tried again, so the next round takes the next best link
    assert walk.fetched[0] == "https://status.example.com/" and walk.fetched[1] in site.pages
    assert walk.pages_spent == 2


def test_a_seed_that_is_a_gold_page_is_reached_before_any_fetch(site):
    walk = traverse(site, site.url("docs/flange-specs.html"), cosines(QUESTION), [], GOLD, Thresholds())
    assert walk.reached_at == 0 and walk.pages_spent == 0


def test_a_folder_is_its_index_page_or_a_listing_of_its_entries(tmp_path, site):
    assert site.pages[site.url("docs/")] == site.pages[site.url("docs/index.html")]
    listing = site.pages[site.url("")]
    assert [(link.url, link.anchor, link.description) for link in listing] == [
        (site.url("docs/"), "docs/", "Directory listing for /")]


def test_a_seed_off_the_site_follows_only_its_parent_paths(site):
    t = Thresholds(breadth_pages=1, max_breadth_rounds=1)
    walk = traverse(site, site.url("docs/missing.html"), cosines(QUESTION), [], GOLD, t)
    assert walk.fetched[0] in (site.url("docs/"), site.url("")) and walk.reached_at is None


def test_a_parent_path_of_the_seed_keeps_the_anchors_pages_link_it_with(site):
    seed = site.url("docs/valves.html")
    pages = {seed: site.pages[seed], site.url("docs/notes.md"): [Link(url=site.url("docs/"), anchor="All the parts")]}
    found = {c.url: c for c in gather(pages, {seed}, {seed: 0, site.url("docs/notes.md"): 2}, seed)}
    folder = found[site.url("docs/")]
    assert folder.anchors == {"All the parts": site.url("docs/notes.md")} and folder.in_degree == 1
    assert folder.depth == 1 and folder.parent == ""  # a parent path is one hop from the seed
