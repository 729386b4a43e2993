"""program/base/redaction.py: known values and key shapes become the marker; log records are redacted once installed."""

from __future__ import annotations

import logging

from program.base.redaction import (
    MARKER,
    install_log_redaction,
    redact,
    remember,
    shown_url,
    shown_urls_in,
)


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


def test_uvicorn_s_access_line_is_written_redacted_without_a_logging_error(capsys, restore_logging):
    from uvicorn.logging import AccessFormatter

    remember("unit-access-secret-77")
    install_log_redaction()
    logger = logging.getLogger("tests.uvicorn.access")
    handler = logging.StreamHandler()
    handler.setFormatter(AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        # uvicorn's own call: the formatter unpacks these five args
        logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", "/answer?key=unit-access-secret-77", "1.1", 200)
    finally:
        logger.removeHandler(handler)
    err = capsys.readouterr().err
    assert "Logging error" not in err and "GET /answer?key=" in err and "unit-access-secret-77" not in err


def test_a_url_is_shown_without_its_credentials_query_or_fragment():
    assert shown_url("http://admin:pass@qdrant.internal:6333/?token=abc#x") == "http://qdrant.internal:6333/"
    assert shown_url("https://[::1]:8443/p") == "https://[::1]:8443/p"
    assert shown_url("http://host:notaport/") == "(a URL that cannot be parsed)"
    assert shown_urls_in("ConnectError for url 'https://u:p@h.test/a?sig=1'") == "ConnectError for url 'https://h.test/a'"
