"""The user documents hold what they promise: every relative link in README.md, CHANGELOG.md and
docs/*.md resolves (its file, and its #anchor among the target's headings), every command they show
(in a code block or an inline code span) that runs `python -m program`, `python -m optimize` or a
`bench/*.py` script uses only flags its parser has, and the README stays short and free of commit
hashes and dated timings. Parsers are read by importing their builders (bench scripts: from their
source), never by running a command."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

import optimize.cli
import optimize.eval.multiturn
import program.cli
from program.base.settings import PROJECT_ROOT

PAGES = sorted([PROJECT_ROOT / "README.md", PROJECT_ROOT / "CHANGELOG.md", *(PROJECT_ROOT / "docs").glob("*.md")])
PARSERS = {"program": program.cli.parser, "optimize": optimize.cli.parser, "optimize.eval.multiturn": optimize.eval.multiturn.parser}
DEFAULT_SUBCOMMAND = {"optimize": "run"}
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_COMMAND = re.compile(r"python -m (optimize\.eval\.multiturn|program|optimize)(?=\s|$)([^|;&#\n]*)|(bench/\w+\.py)([^|;&#\n]*)")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")


def prose(text: str) -> str:
    """The page without its code blocks and inline code, where a link is only an example."""
    return re.sub(r"`[^`\n]*`", "", _FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.+)$", _FENCE.sub("", page.read_text(encoding="utf-8")), re.M):
        base = slug(heading)
        seen[base] = seen.get(base, -1) + 1
        seen.setdefault(f"{base}-{seen[base]}" if seen[base] else base, 0)
    return set(seen)


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in _LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not this test's to reach
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading with that anchor")
    return broken


def shown_commands(page: Path) -> list[tuple[str, str]]:
    """(program or bench script, the rest of its line) for each command a code block or span shows."""
    text = page.read_text(encoding="utf-8")
    spans = [*(block for block in _FENCE.findall(text)), *re.findall(r"`([^`\n]+)`", _FENCE.sub("", text))]
    found = []
    for span in spans:
        # a line ending in \ or a line indented under a command continues it
        span = re.sub(r"\\\n\s*", " ", span)
        span = re.sub(r"\n\s+(?=\[|--)", " ", span)
        for match in _COMMAND.finditer(span):
            found.append((match[1] or match[3], (match[2] if match[1] else match[4]) or ""))
    return found


def parser_flags(prog: str, rest: str) -> set[str]:
    """The long options of the parser `prog` with the subcommand `rest` starts with."""
    parser = PARSERS[prog]()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if subs:
        first = rest.split()[0].strip("[]") if rest.split() else ""
        name = first if first in subs[0].choices else DEFAULT_SUBCOMMAND.get(prog)
        if name is None:
            return {"--help"}
        parser = subs[0].choices[name]
    return {option for action in parser._actions for option in action.option_strings if option.startswith("--")}


def bench_flags(script: str) -> set[str]:
    """The long options a bench script's argparse declares, read from its source."""
    tree = ast.parse((PROJECT_ROOT / script).read_text(encoding="utf-8"))
    return {"--help"} | {arg.value for node in ast.walk(tree) if isinstance(node, ast.Call)
                         and getattr(node.func, "attr", "") == "add_argument"
                         for arg in node.args if isinstance(arg, ast.Constant) and str(arg.value).startswith("--")}


COMMANDS = [(page, prog, rest) for page in PAGES if page.exists() for prog, rest in shown_commands(page)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(PROJECT_ROOT).as_posix())
def test_every_relative_link_resolves(page):
    assert page.exists(), f"{page.name} is linked from the README's read-more table"
    assert broken_links(page) == []


@pytest.mark.parametrize("page, prog, rest", COMMANDS,
                         ids=[f"{p.name}:{prog} {rest.split()[0] if rest.split() else ''}" for p, prog, rest in COMMANDS])
def test_every_command_shown_uses_flags_that_exist(page, prog, rest):
    if prog.startswith("bench/"):
        assert (PROJECT_ROOT / prog).is_file(), f"{page.name} shows {prog}, which does not exist"
        real = bench_flags(prog)
    else:
        real = parser_flags(prog, rest)
    unknown = sorted(set(_FLAG.findall(rest)) - real)
    assert unknown == [], f"{page.name} shows `{prog}{rest}` with flags its parser lacks"


def test_the_docs_show_commands_of_every_kind_checked():
    assert {prog for _, prog, _ in COMMANDS} >= {"program", "optimize", "optimize.eval.multiturn", "bench/results.py"}


def test_the_readme_is_short_and_carries_no_history():
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 350
    assert re.findall(r"\b[0-9a-f]{7,40}\b", text) == []  # no commit hashes (nor any word that reads as one)
    assert not re.search(r"\b(slow|fast|slowest|fastest) hour\b", text)


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "results.md"], ids=lambda p: p.name)
def test_no_hand_written_page_cites_a_commit(page):
    """Figures with their commits live in docs/results.md, which bench/results.py writes."""
    assert _HASH.findall(page.read_text(encoding="utf-8")) == []


def test_the_link_checker_finds_what_is_broken(tmp_path):
    (tmp_path / "a.md").write_text("# Title\n## Two words\n")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#two-words) [gone](missing.md) [bad](a.md#nope) [web](https://x.org) `[code](no.md)`\n")
    assert broken_links(page) == ["missing.md: no such file", "a.md#nope: no heading with that anchor"]


def test_commands_are_read_across_continuations(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```bash\npython -m optimize eval --split dev \\\n    --limit 4  # a comment --not-a-flag\n```\n")
    assert shown_commands(page) == [("optimize", " eval --split dev  --limit 4  ")]
    assert parser_flags("optimize", "--dataset x") >= {"--dataset", "--preset"}  # bare optimize runs the job
