"""program/retrieval/breadth.py through the loop: from a seed page served on 127.0.0.1, the gate follows
the links two hops out to the page that answers, and the result shows the traversal."""

from __future__ import annotations

import functools
import http.server
import threading

import dspy
import pytest

from program.base.settings import Settings
from program.contract.render import render_result
from program.loop import GatedRAG
from program.retrieval.breadth import BreadthExpander
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.retriever import HybridSearch
from program.thresholds import Thresholds
from tests.conftest import scripted_lm


def page(title: str, body: str, links: dict[str, str] = {}) -> str:  # noqa: B006 - read only
    anchors = "".join(f'<li><a href="{href}">{text}</a></li>' for text, href in links.items())
    return (f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{body}</p>"
            f"<h2>See also</h2><ul>{anchors}</ul></main></body></html>")


SITE = {
    "docs/index.html": page("Widget documentation", "Welcome to the widget manuals. They cover every part we ship, "
                            "from the smallest gear to the largest pump, and how to install each of them.",
                            {"Valves": "valves.html", "Gears": "gears.html", "Sprockets": "sprockets.html",
                             "Contact us": "contact.html"}),
    "docs/valves.html": page("Valves", "Our valves include the Quorvex line of industrial pressure valves, sold since "
                             "1990 to refineries and water works across the country.",
                             {"Flange specifications": "flange-specs.html", "Valve history": "history.html"}),
    "docs/flange-specs.html": page("Quorvex flange specifications", "The Quorvex valve flange must be tightened to a "
                                   "torque of 45 newton metres, checked yearly with a calibrated wrench."),
    "docs/gears.html": page("Gears", "Gears turn sprockets at fixed ratios; the widget uses spur gears only."),
    "docs/sprockets.html": page("Sprockets", "Sprockets need weekly oiling with a light machine oil."),
    "docs/contact.html": page("Contact", "Write to the support desk for replacement parts."),
    "docs/history.html": page("Valve history", "The first valves were carved from wood."),
}
QUESTION = "What torque does the Quorvex valve flange need?"


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    for name, html in SITE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(html)
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/docs/"
    server.shutdown()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_a_question_two_links_from_the_seed_is_answered_and_the_traversal_shows_the_path(site, tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, collection="site", web_backend="none",
                        fetch_allow_hosts=["127.0.0.1"])
    store = EdgeStore(tmp_path / "store")
    search = HybridSearch(store, "site", embedder=load_embedder(settings))
    rag = GatedRAG(search, thresholds=Thresholds(breadth_pages=1), breadth=BreadthExpander(settings, search))
    # the reader cites every passage it was shown: which number the answer page gets is not this test's concern
    answer = {"short_answer": "45 newton metres", "answer": "The flange needs a torque of 45 newton metres [1] [2] [3]."}
    lm = scripted_lm(answer, answer, answer)
    with dspy.context(lm=lm, adapter=lm.adapter):
        result = rag(question=QUESTION, url=site + "index.html").result
    store.close()
    steps = [(s.round, s.url.removeprefix(site), s.status) for s in result.expansion_steps]
    assert steps[0] == (0, "index.html", "seed")
    fetched = [(r, url) for r, url, status in steps if status == "fetched"]
    assert fetched == [(1, "valves.html"), (2, "flange-specs.html")]
    assert any(status == "skipped" for _, _, status in steps)  # the links scored but not followed are shown too
    flange = next(s for s in result.expansion_steps if s.url.endswith("flange-specs.html"))
    assert flange.parent == site + "valves.html" and flange.score > 0
    assert any(p.url.endswith("flange-specs.html") for p in result.evidence)
    assert [s.rule for s in result.trace.steps if s.action == "expand_breadth"] == ["off_topic_to_links", "gap_to_links"]
    assert result.short_answer == "45 newton metres"
    assert any(c.url.endswith("flange-specs.html") for c in result.citations)
    tree = render_result(result).split("Traversal:\n")[1].split("\n\n")[0].splitlines()
    assert tree[0].strip() == f"{site}index.html (seed)"
    valves = next(i for i, line in enumerate(tree) if line.strip().startswith(("├─", "└─")) and "valves.html" in line)
    assert "flange-specs.html" in tree[valves + 1] and "round 2" in tree[valves + 1] and "fetched" in tree[valves + 1]
    assert tree[valves + 1].index("flange") > tree[valves].index("valves")  # drawn under the page that linked it


def test_without_an_allowed_host_a_local_seed_is_refused_and_the_loop_says_so(site, tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, collection="site", web_backend="none")
    store = EdgeStore(tmp_path / "store")
    search = HybridSearch(store, "site", embedder=load_embedder(settings))
    seeded = BreadthExpander(settings, search).seed(site + "index.html")
    store.close()
    assert seeded.status == "failed" and "127.0.0.1" in seeded.reason


@pytest.fixture
def expander(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, collection="site", web_backend="none",
                        fetch_allow_hosts=["127.0.0.1"])
    store = EdgeStore(tmp_path / "store")
    yield BreadthExpander(settings, HybridSearch(store, "site", embedder=load_embedder(settings)))
    store.close()


def test_a_link_is_scored_by_the_best_anchor_any_page_gives_it_and_drawn_under_that_page(site, tmp_path, expander):
    # a directory listing names flange-specs.html by its file name; valves.html by what it is about
    (tmp_path / "site" / "docs" / "listing.html").write_text(page("Index of /docs", "", {
        "flange-specs.html": "flange-specs.html", "history.html": "history.html"}))
    expander.fetch([site + "listing.html", site + "valves.html"])
    depths = {site + "listing.html": 1, site + "valves.html": 1}
    found = expander.candidates(QUESTION, ["torque", "quorvex", "flange"], site + "index.html", depths, Thresholds())
    flange = next(c for c in found if c.url.endswith("flange-specs.html"))
    assert flange.anchor == "Flange specifications" and flange.parent == site + "valves.html"
    assert flange.in_degree == 2 and found[0] is flange


def test_a_link_that_failed_to_fetch_is_no_candidate_in_a_later_round(site, expander):
    expander.fetch([site + "valves.html"])
    depths = {site + "valves.html": 1}
    before = expander.candidates(QUESTION, ["flange"], site + "index.html", depths, Thresholds())
    after = expander.candidates(QUESTION, ["flange"], site + "index.html", depths, Thresholds(),
                                failed=frozenset({site + "flange-specs.html"}))
    assert site + "flange-specs.html" in [c.url for c in before]
    assert site + "flange-specs.html" not in [c.url for c in after] and site + "history.html" in [c.url for c in after]


class _CountingSearch:
    """The expander's search, counting the texts each candidates round embeds."""

    def __init__(self, search):
        self.search, self.embedded = search, []

    def __getattr__(self, name):
        return getattr(self.search, name)

    def embed(self, texts):
        self.embedded.append(len(texts) - 1)  # the question is embedded every round
        return self.search.embed(texts)


def test_a_later_round_embeds_only_the_link_texts_no_round_embedded_before(site, expander):
    expander.search = counting = _CountingSearch(expander.search)
    expander.fetch([site + "index.html"])
    depths = {site + "index.html": 0}
    first = expander.candidates(QUESTION, ["flange"], site + "index.html", depths, Thresholds())
    again = expander.candidates("Which oil do sprockets need?", ["oil"], site + "index.html", depths, Thresholds())
    assert counting.embedded[0] > 0 and counting.embedded[1] == 0  # the same links: nothing embedded again
    assert {c.url for c in first} == {c.url for c in again} and first[0].url != again[0].url  # scored anew


def test_a_seed_that_trickles_fails_at_the_time_it_was_given_and_names_no_credentials(tmp_path, expander):
    from tests.reliability.hostile_pages import hostile_host

    with hostile_host() as host:
        seeded = expander.seed(host.url.replace("//", "//user:pw@") + "/trickle?token=SECRET", seconds=1.0)
    assert seeded.status == "failed" and "deadline" in seeded.reason
    assert "pw" not in seeded.url + seeded.reason and "SECRET" not in seeded.url + seeded.reason
