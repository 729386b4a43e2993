"""The README's command summary agrees with every command's `--help`: each flag it shows exists,
a flag it shows outside brackets is required and one inside is optional, and a command line that
does not end in `...` shows every flag its parser has."""

from __future__ import annotations

import argparse
import re

import pytest

import optimize.cli
import optimize.eval.multiturn
import program.cli
from program.base.settings import PROJECT_ROOT

PARSERS = {"python -m program": program.cli.parser, "python -m optimize": optimize.cli.parser,
           "python -m optimize.eval.multiturn": optimize.eval.multiturn.parser}
DEFAULT_COMMAND = {"python -m optimize": "run"}
_FLAG = re.compile(r"--[a-z][a-z0-9-]*")


def readme_commands() -> list[tuple[str, str | None, str]]:
    """(program, subcommand, the rest of its line) for each command the README's summary shows."""
    text = (PROJECT_ROOT / "README.md").read_text()
    block = text.split("## Commands", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    lines: list[str] = []
    for line in block.splitlines():
        if line.startswith(" ") and lines:
            lines[-1] += " " + line.strip()  # a continuation of the command above
        elif line.strip():
            lines.append(line.strip())
    commands = []
    for line in lines:
        prog = max((p for p in PARSERS if line.startswith(p + " ") or line == p), key=len)
        rest = line[len(prog):].strip()
        first = rest.split(" ", 1)[0] if rest else ""
        sub = first if first and not first.startswith(("[", "-", '"')) and first.replace("-", "_").isidentifier() else None
        if sub is None and first.startswith("[") and first.strip("[]") == DEFAULT_COMMAND.get(prog):
            sub = DEFAULT_COMMAND[prog]
        commands.append((prog, sub, rest.split(" ", 1)[1] if sub and " " in rest else ("" if sub else rest)))
    return commands


def shown_flags(rest: str) -> dict[str, bool]:
    """flag -> shown as required (outside every bracket)."""
    flags, depth = {}, 0
    for i, char in enumerate(rest):
        depth += {"[": 1, "]": -1}.get(char, 0)
        match = _FLAG.match(rest, i) if rest.startswith("--", i) and (i == 0 or rest[i - 1] in " [|") else None
        if match:
            flags.setdefault(match.group(), depth == 0)
    return flags


def parser_flags(prog: str, sub: str | None) -> dict[str, bool]:
    """flag -> required, for the parser of `prog sub` (its long options, --help aside)."""
    parser = PARSERS[prog]()
    if sub:
        choices = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
        parser = choices[sub]
    return {option: action.required for action in parser._actions for option in action.option_strings
            if option.startswith("--") and option != "--help"}


COMMANDS = readme_commands()


def test_the_summary_shows_every_command_there_is():
    shown = {(prog, sub) for prog, sub, _ in COMMANDS}
    for prog, build in PARSERS.items():
        subs = [a for a in build()._actions if isinstance(a, argparse._SubParsersAction)]
        for sub in (subs[0].choices if subs else [None]):
            assert (prog, sub) in shown, f"README's Commands does not show `{prog} {sub or ''}`"


@pytest.mark.parametrize("prog, sub, rest", COMMANDS, ids=[f"{p.split()[-1]} {s or ''}".strip() for p, s, _ in COMMANDS])
def test_each_flag_the_readme_shows_is_the_parsers_and_required_where_it_is_shown_so(prog, sub, rest):
    real, shown = parser_flags(prog, sub), shown_flags(rest)
    assert set(shown) <= set(real), f"README shows flags `{prog} {sub}` lacks: {sorted(set(shown) - set(real))}"
    wrong = {flag for flag, required in shown.items() if required != real[flag]}
    assert not wrong, f"README shows these of `{prog} {sub}` as {'required' if shown[min(wrong)] else 'optional'}: {sorted(wrong)}"
    if not rest.rstrip().endswith("..."):
        assert set(real) <= set(shown), f"README's `{prog} {sub}` line omits {sorted(set(real) - set(shown))}; end it with ..."
