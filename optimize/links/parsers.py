"""The flags of `python -m optimize links`. They name its recipe in `optimize.links.command` by
"module:function", imported only when the command runs.
"""

from __future__ import annotations

from pathlib import Path

from program.base.command_line import add_data_dir


def add_parsers(sub, positive_int) -> None:
    links = sub.add_parser("links", help="fit the link score's weights to a site and labelled questions (no LM)",
                           description=(
        "Replay each question's breadth expansion from its seed page over a site folder under hundreds of link "
        "weights, and keep the searched weights only if, cross-validated, they reach the questions' gold pages more "
        "often. No page is fetched and no LM is run."))
    links.add_argument("--dataset", required=True, metavar="FILE|NAME", help="aws_docs, or a labelled question file "
                       "whose gold_sources are page paths in the site folder")
    links.add_argument("--split", default="dev", help="the questions' split (default dev; test is refused)")
    links.add_argument("--limit", type=positive_int, help="first N questions of the split")
    links.add_argument("--site", type=Path, help="a folder of the site's markdown and HTML pages "
                       "(aws_docs: its bundled guides)")
    links.add_argument("--seed", help="the page each question starts from, a path in the site folder; {top} stands "
                       "for the first folder of the question's gold source (aws_docs: {top}/doc_source/index.md)")
    links.add_argument("--program", type=Path, help="a compiled program: the search starts from its thresholds, and "
                       "a program carrying the searched weights is written beside the run when they ship")
    links.add_argument("--trials", type=positive_int, default=200)
    links.add_argument("--latency-weight", type=float, default=0.3, help="how much pages spent count against reach "
                       "when choosing on the Pareto front")
    links.add_argument("--seed-number", type=int, default=20240501, help="the sampler's and the folds' random seed")
    add_data_dir(links)
    links.add_argument("--no-progress", dest="progress", action="store_false")
    links.set_defaults(run="optimize.links.command:links_command")
