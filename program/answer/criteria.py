"""Acceptance criteria a caller sets on an answer: elements it must contain, elements it must
not, and at most one named domain check.

An element is plain text or a regular expression:
- plain text matches case-insensitively as a whole phrase: "us-east-1" is found in "use
  us-east-1 [2]" but not in "us-east-12", and any run of spaces in it matches any other;
- "re:" followed by a pattern is a regular expression in RE2's syntax (Python's without
  lookarounds or backreferences), searched case-insensitively: "re:\\bv[0-9]+\\b". RE2 matches
  in time linear in the text, and a pattern whose compiled program would outgrow
  `PATTERN_MEMORY` (nested counted repeats) is refused, so no caller's pattern can exhaust
  memory or time.
A bad pattern is a ValueError (`compile_element`) before anything runs. The answer is matched
without its [n] markers; a prohibited element is looked for in its short answer too. Domain
checks (`CHECKS`) are named rules over the answer's text, such as `aws_region`.
Each failure is worded as what the answer must do, so the same words report it and ask a repair
for it. This module only matches text: it calls no LM and decides nothing (`program.gate` does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import re2
import regex

from program.answer.citations import strip_markers
from program.answer.code_check import find_blocks
from program.evidence import split_sentences

REGEX_PREFIX = "re:"
MATCH_TIMEOUT_S = 0.1  # a plain element's own pattern, matched with a timeout all the same
PATTERN_MEMORY = 8 << 20  # bytes RE2 may spend compiling one caller's pattern

_REGION = regex.compile(r"\b(?:us-gov|us|eu|ap|sa|ca|me|af|il|mx|cn)-(?:north|south|east|west|central|northeast|"
                        r"southeast|northwest|southwest)-\d{1,2}\b", regex.IGNORECASE)
# Lambda runtimes past their deprecation date (docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html,
# 2025), and boto, the Python SDK boto3 replaced
_DEPRECATED = regex.compile(r"\b(?:python2\.7|python3\.[678]|nodejs(?:4\.3|6\.10|8\.10|1[0246]\.x)|ruby2\.[57]|"
                            r"dotnetcore[123]\.[01]|dotnet6|go1\.x|java8(?!\.al2)|boto)\b", regex.IGNORECASE)
_SAYS_DEPRECATED = regex.compile(r"deprecat|end of (life|support)|no longer supported|unsupported|upgrade|migrat",
                                 regex.IGNORECASE)


@dataclass(frozen=True)
class DomainCheck:
    name: str
    wants: str  # what the check asks of an answer, as the LM reads it and a failure reports it
    fails: Callable[[str], bool]  # the answer's text -> whether it fails the check


def _no_region(text: str) -> bool:
    return _REGION.search(text) is None


def _recommends_deprecated(text: str) -> bool:
    """A sentence names a deprecated runtime or SDK without calling it deprecated."""
    return any(_DEPRECATED.search(s) and not _SAYS_DEPRECATED.search(s) for s in split_sentences(text))


def _no_code(text: str) -> bool:
    return not find_blocks(text)


CHECKS = {check.name: check for check in (
    DomainCheck("aws_region", "name an AWS region code such as us-east-1", _no_region),
    DomainCheck("no_deprecated", "recommend no deprecated Lambda runtime or SDK (such as python3.7, nodejs14.x, boto)",
                _recommends_deprecated),
    DomainCheck("code_example", "include a fenced code example", _no_code),
)}


@dataclass(frozen=True)
class Criteria:
    required: tuple[str, ...] = ()
    prohibited: tuple[str, ...] = ()
    check: str | None = None  # a name in CHECKS

    @property
    def given(self) -> int:
        return len(self.required) + len(self.prohibited) + (self.check is not None)

    def prompt(self) -> str:
        """The criteria as the LM reads them with the question; empty when there are none."""
        wants = [f"mention {_shown(e)}" for e in self.required] + [f"do not mention {_shown(e)}" for e in self.prohibited]
        return "; ".join(wants + ([CHECKS[self.check].wants] if self.check else []))


@dataclass(frozen=True)
class CriteriaReport:
    given: int
    failed: tuple[str, ...]  # each worded as what the answer must do

    @property
    def share_met(self) -> float | None:
        """The share of the criteria met; None when none were given."""
        return (self.given - len(self.failed)) / self.given if self.given else None


def compile_element(element: str):
    """The pattern an element stands for; a ValueError naming the problem for a bad one.
    subtle: a caller's "re:" pattern is compiled by RE2 under a memory bound: compiled by a
    backtracking engine, `(?:(?:a{999}){999}){999}` grew the server to 24 GB before any match."""
    if not element.startswith(REGEX_PREFIX):
        words = element.split()
        if not words:
            raise ValueError("an element is empty")
        return regex.compile(r"(?<!\w)" + r"\s+".join(map(regex.escape, words)) + r"(?!\w)", regex.IGNORECASE)
    if not element[len(REGEX_PREFIX):].strip():
        raise ValueError(f"{REGEX_PREFIX} needs a pattern after it")
    try:
        return re2.compile(element[len(REGEX_PREFIX):], _RE2_OPTIONS)
    except re2.error as error:
        # subtle: the message names the problem, never the pattern: a 422 does not quote input
        reason = error.args[0].decode(errors="replace") if error.args and isinstance(error.args[0], bytes) else str(error)
        raise ValueError(f"not a regular expression this service runs in linear time (RE2 syntax: no lookaround, "
                         f"no backreference, repeats up to 1000, bounded size): {reason.split(':')[0]}") from None


def known_check(name: str) -> str:
    if name not in CHECKS:
        raise ValueError(f"unknown check; choose {', '.join(sorted(CHECKS))}")
    return name


def judge_criteria(answer: str, short_answer: str, criteria: Criteria) -> CriteriaReport:
    """Which criteria the answer fails. Required elements and the check read the answer itself;
    prohibited elements read its short answer too: nothing returned may hold them.
    subtle: the short answer does not meet a requirement: the 0.5B, shown `mention "Indiana"`,
    answered "Indiana" to a question about a race track to meet it."""
    text, everything = strip_markers(answer), strip_markers(f"{short_answer}\n{answer}")
    # subtle: a pattern too slow to match (None) fails either way: neither presence nor absence is shown
    failed = [f"must mention {_shown(e)}" for e in criteria.required if _found(e, text) is not True]
    failed += [f"must not mention {_shown(e)}" for e in criteria.prohibited if _found(e, everything) is not False]
    if criteria.check and CHECKS[criteria.check].fails(text):
        failed.append(f"must {CHECKS[criteria.check].wants}")
    return CriteriaReport(given=criteria.given, failed=tuple(failed))


def _found(element: str, text: str) -> bool | None:
    """Whether the element is in the text; None when a plain element's pattern took longer than
    MATCH_TIMEOUT_S (a "re:" pattern runs on RE2, in time linear in the text)."""
    pattern = compile_element(element)
    if element.startswith(REGEX_PREFIX):
        return pattern.search(text) is not None
    try:
        return pattern.search(text, timeout=MATCH_TIMEOUT_S) is not None
    except TimeoutError:
        return None


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.max_mem, options.case_sensitive, options.log_errors = PATTERN_MEMORY, False, False
    return options


_RE2_OPTIONS = _re2_options()


def _shown(element: str) -> str:
    return f"text matching /{element[len(REGEX_PREFIX):]}/" if element.startswith(REGEX_PREFIX) else f'"{element}"'
