"""program/base/settings_reference.py: the configuration page's table is the settings' fields, row for row."""

from __future__ import annotations

from program.base import settings_reference as reference
from program.base.settings import Settings


def test_the_configuration_page_shows_the_current_settings():
    page = reference.PAGE.read_text(encoding="utf-8")
    assert page == reference.rewritten(page), "docs/configuration.md is stale: run python -m program.base.settings_reference"


def test_every_field_has_a_row_naming_the_variable_a_user_sets():
    table = reference.table()
    assert table.count("\n") == len(Settings.model_fields) + 1
    assert "| `OPENAI_API_KEY` | secret | unset |" in table  # the name users know, not GATEDRAG_OPENAI_API_KEY
    assert "| `GATEDRAG_WEB_BACKEND` | `tavily` \\| `offline` \\| `none` | unset |" in table
    assert "| `GATEDRAG_SHARED_DATA` | path | `../shared/data` |" in table  # relative to the project, not this machine's


def test_rewriting_replaces_only_the_table():
    page = f"intro\n{reference.BEGIN}\n| old | table |\n{reference.END}\noutro\n"
    new = reference.rewritten(page)
    assert new.startswith(f"intro\n{reference.BEGIN}\n| variable |") and new.endswith(f"{reference.END}\noutro\n")
    assert "| old | table |" not in new and reference.rewritten(new) == new
