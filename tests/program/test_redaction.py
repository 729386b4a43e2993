"""program/redaction.py: known values and key shapes become the marker; log records are redacted once installed."""

from __future__ import annotations

import logging

from program.redaction import MARKER, install_log_redaction, redact, remember


def test_a_remembered_value_is_redacted_longest_first_and_short_values_are_ignored():
    remember("unit-secret-abc", "unit-secret-abcdef", "short")
    assert redact("a unit-secret-abcdef b unit-secret-abc c short") == f"a {MARKER} b {MARKER} c short"


def test_ordinary_text_is_left_alone():
    text = "sk-learn and tvly-short and a bearer of news; Bearer"
    assert redact(text) == text


def test_installed_once_log_records_are_redacted_with_their_arguments(caplog, restore_logging):
    remember("unit-logged-secret-42")
    install_log_redaction()
    installed = logging.getLogRecordFactory()
    install_log_redaction()  # a second install must not wrap the factory again
    assert logging.getLogRecordFactory() is installed
    logging.getLogger("tests.redaction").warning("got %s from %d", "unit-logged-secret-42", 7)
    assert caplog.records[-1].getMessage() == f"got {MARKER} from 7"
