"""The MCP server under remote ingests it must refuse and searches beside an ingest, through the SDK's client in
process. (`python bench/faults.py --only mcp` runs 32 searches at once for a minute.)"""

from __future__ import annotations

import time

import anyio
import pytest
from mcp import Client

from program.base.settings import Settings
from program.serving.answerer import Answerer
from program.serving.mcp_server import create_mcp_server

SECRET = "hunter2-in-a-key-file"


def no_lm():
    raise RuntimeError("no LM in these tests")


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "root"
    (root / "pages").mkdir(parents=True)
    (root / "pages" / "valves.md").write_text("# Valves\n\nA relief valve opens above its set pressure.\n")
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", collection="pages", web_backend="none",
                        ingest_roots=[root])
    return create_mcp_server(Answerer(no_lm, settings), settings), root, tmp_path


def calls(server, body):
    async def main():
        async with Client(server) as client:
            return await body(client)
    return anyio.run(main)


def test_paths_outside_the_roots_hidden_or_keys_are_refused_and_keys_in_a_folder_never_indexed(served):
    server, root, tmp_path = served
    (tmp_path / "elsewhere.md").write_text(f"# Elsewhere\n\n{SECRET}\n")
    (root / "link.md").symlink_to(tmp_path / "elsewhere.md")
    for name in (".env", "id_rsa", "pages/server.pem", "pages/credentials.json"):
        (root / name).write_text(f"{SECRET}\n")
    refused = [root / ".." / "elsewhere.md", tmp_path / "elsewhere.md", root / "link.md", root / ".env",
               root / "id_rsa", root / "pages" / "server.pem"]

    async def body(client):
        results = [await client.call_tool("ingest", {"sources": [str(path)]}) for path in refused]
        folder = await client.call_tool("ingest", {"sources": [str(root / "pages")], "include": ["*"]})
        found = await client.call_tool("search_corpus", {"query": SECRET, "top_k": 10})
        return results, folder, found

    results, folder, found = calls(server, body)
    assert all(r.is_error for r in results)
    assert not folder.is_error and folder.structured_content["documents"] == 1
    assert SECRET not in str(found.structured_content)


def test_searches_beside_ingests_never_fail(served):
    server, root, _ = served
    errors, counts, seconds = [], {"searches": 0, "ingests": 0}, 3.0

    async def body(client):
        await client.call_tool("ingest", {"sources": [str(root / "pages")]})
        deadline = time.monotonic() + seconds

        async def search():
            while time.monotonic() < deadline:
                result = await client.call_tool("search_corpus", {"query": "relief valve", "top_k": 3})
                errors.extend([result.content[0].text] if result.is_error else [])
                counts["searches"] += 1

        async def ingest():
            while time.monotonic() < deadline:
                (root / "pages" / "edited.md").write_text(f"# Edited\n\nRevision {counts['ingests']}.\n")
                result = await client.call_tool("ingest", {"sources": [str(root / "pages")], "prune": True})
                errors.extend([result.content[0].text] if result.is_error else [])
                counts["ingests"] += 1

        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(search)
            group.start_soon(ingest)

    calls(server, body)
    assert errors == [] and counts["searches"] > 8 and counts["ingests"] > 1
