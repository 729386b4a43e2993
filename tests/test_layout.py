"""The layout's promises: imports between the project's modules form no cycle, no module imports a
private (`_name`) helper of another package (subpackages count: `program.serving` may not take
`program.retrieval`'s) or a module that does not exist, and tests mirror the source tree. Read
from the source with `ast`, imports inside functions included, so a lazy import cannot hide a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("signatures", "program", "metrics", "optimize")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def imports(path: Path, modules: dict[str, Path]) -> list[tuple[str, str]]:
    """(module imported, name taken from it) for every import of a project module in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                found.append((target, "") if target in modules else (node.module, alias.name))
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
    return [(module, name) for module, name in found if module in modules]


def package_of(module: str, modules: dict[str, Path]) -> str:
    """The package a module belongs to: itself for a package's `__init__`, else its parent."""
    return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]


def graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: {m for m, _ in imports(path, modules) if m != name} for name, path in modules.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str]:
    """One import cycle as a path of modules, or [] when there is none (depth-first, three colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        stack.pop()
        return []

    for start in sorted(edges):
        if start not in state and (cycle := visit(start)):
            return cycle
    return []


def test_the_cycle_finder_finds_a_planted_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_the_projects_modules():
    assert find_cycle(graph()) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_private_helper_is_imported_from_another_package(package):
    modules = project_modules()
    crossing = [f"{module_name(path)} imports {module}.{name}"
                for path in (ROOT / package).rglob("*.py")
                for module, name in imports(path, modules)
                if name.startswith("_") and not name.startswith("__")
                and package_of(module, modules) != package_of(module_name(path), modules)]
    assert crossing == []


def test_the_lm_is_made_dspys_in_one_place():
    calls = [path.relative_to(ROOT).as_posix() for package in (*PACKAGES, "bench") for path in (ROOT / package).rglob("*.py")
             if "dspy.configure(" in path.read_text(encoding="utf-8")]
    assert calls == ["program/lm/lm_profiles.py"], "start the LM with program.lm.lm_profiles.configure_lm"


def test_every_import_of_a_project_module_names_one_that_exists():
    # no old path (program.loading, program.settings, ...) is kept importable for saved models:
    # `python -m program migrate` rewrites those; a lazy import of one would fail only when it runs
    modules = project_modules()
    found = []
    for path in (p for folder in (*PACKAGES, "bench", "tests") for p in (ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            found += [f"{path.relative_to(ROOT)} imports {t}" for t in targets
                      if t.split(".")[0] in PACKAGES and t not in modules]
    assert found == []


# Tests about no one module: the repository-wide suites directly in tests/ (the layout, the answer
# contract on every surface, the README's commands) are not listed; these are the others.
ABOUT_NO_ONE_MODULE = {"tests/reliability", "tests/program/test_end_to_end.py"}


def mirrored(test: Path) -> bool:
    """Whether tests/D/test_X.py has its module at D/X.py, its package at D/X/, or is D's own (X is D)."""
    folder, name = test.parent.relative_to(ROOT / "tests"), test.stem.removeprefix("test_")
    return (ROOT / folder / f"{name}.py").is_file() or (ROOT / folder / name).is_dir() or folder.name == name


def test_tests_mirror_the_source_tree():
    tests = [p for p in (ROOT / "tests").rglob("test_*.py") if p.parent != ROOT / "tests"]
    astray = sorted(name for name in (p.relative_to(ROOT).as_posix() for p in tests if not mirrored(p))
                    if not name.startswith(tuple(ABOUT_NO_ONE_MODULE)))
    assert astray == [], "move each beside the module it tests: program/answer/x.py -> tests/program/answer/test_x.py"


def test_the_mirror_check_catches_a_test_left_behind():
    assert not mirrored(ROOT / "tests/program/test_code_check.py")
    assert mirrored(ROOT / "tests/program/answer/test_code_check.py")
    assert mirrored(ROOT / "tests/optimize/replay/test_replay.py")  # the package's own test


def test_program_s_top_level_is_the_loop_and_its_entry():
    files = sorted(p.stem for p in (ROOT / "program").glob("*.py") if p.stem not in ("__init__", "__main__"))
    assert len(files) <= 12, files
