"""Canary secrets, one per secret setting, an error text that carries all of them, and a counter of leaks.

The canaries have no key-like prefix, so only `program.base.redaction`'s memory of the settings' own
secrets can catch them. Shared by tests/reliability/test_secrets.py, tests/reliability/canary_child.py
and bench/fault_checks/canary.py; not a test module.
"""

from __future__ import annotations

CANARIES = {"OPENAI_API_KEY": "canary-openai-0f1e2d3c4b", "TAVILY_API_KEY": "canary-tavily-8a7b6c5d4e",
            "QDRANT_API_KEY": "canary-qdrant-4e5f6a7b8c", "GATEDRAG_API_TOKEN": "canary-token-9d8c7b6a5f",
            "COHERE_API_KEY": "canary-cohere-3b2a1f0e9d"}
LEAK = "the backend said: " + ", ".join(f"key {value} rejected" for value in CANARIES.values())


def hits(text: str) -> list[str]:
    """The canaries found in `text`."""
    return [value for value in CANARIES.values() if value in text]
