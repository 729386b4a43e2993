"""The MCP server through the SDK's own client: in process with a scripted LM, and once for real
over stdio (`python -m program mcp`) with the tools that need no LM."""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters

from program.base.settings import PROJECT_ROOT, Settings
from program.contract.answer_response import SCHEMA_VERSION, AnswerResponse
from program.retrieval.chunking import Document
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.indexing import index_documents
from program.retrieval.open_store import open_store
from program.serving.mcp_server import create_mcp_server
from tests.program.fake_engine import FOLLOW_UP, QUESTION, STANDALONE, fake_answerer

PAGES = {
    "Kiss and Tell": "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer.",
    "Shirley Temple": "Shirley Temple Black was an American actress who later served as Chief of Protocol of the United States.",
    "Eiffel Tower": "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
}
TOOLS = {"answer", "search_corpus", "ingest", "corpus_status"}


def build_index(store, settings: Settings) -> None:
    documents = [Document(doc_id=t.replace(" ", "_"), title=t, text=x, url=f"https://example.org/{t}") for t, x in PAGES.items()]
    index_documents(store, settings.collection, documents, progress=False, embedder=load_embedder(settings))


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Settings:
    settings = Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("mcp"), collection="pages", profile="local",
                        web_backend="offline")
    build_index(open_store(settings), settings)
    return settings


def call(server, *calls: tuple[str, dict]) -> list:
    async def main():
        async with Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def test_answer_returns_the_same_contract_as_the_http_service(config):
    server = create_mcp_server(fake_answerer(config), config)
    (result,) = call(server, ("answer", {"question": QUESTION, "expansion_budget": 0, "include_trace": True}))
    body = result.structured_content
    assert not result.is_error
    assert body["answer"] == "Chief of Protocol of the United States [2]." and body["citations"]
    assert body["retrieval_quality"] == "high" and body["query_type"] == "factual"
    assert [s["action"] for s in body["trace"]["steps"]] == ["decompose", "retrieve", "draft", "answer", "score"]
    assert body["short_answer"] == "Chief of Protocol"
    assert json.loads(result.content[0].text)["answer"] == body["answer"]


def test_acceptance_criteria_reach_the_loop(config):
    server = create_mcp_server(fake_answerer(config), config)
    (result,) = call(server, ("answer", {"question": QUESTION, "required": ["Chief of Protocol"], "check": "aws_region"}))
    acceptance = result.structured_content["acceptance"]
    assert acceptance["criteria_given"] == 2 and acceptance["failed"] == ["must name an AWS region code such as us-east-1"]


def test_the_answer_tool_publishes_the_contracts_output_schema(config):
    async def tools():
        async with Client(create_mcp_server(fake_answerer(config), config)) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    schema = anyio.run(tools)["answer"].output_schema
    assert schema["properties"] == AnswerResponse.model_json_schema()["properties"]
    assert schema["properties"]["schema_version"]["const"] == SCHEMA_VERSION


def test_every_tool_parameter_is_described_fixed_values_are_enums_and_tools_say_what_they_change(config):
    async def tools():
        async with Client(create_mcp_server(fake_answerer(config), config)) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    listed = anyio.run(tools)
    assert set(listed) == TOOLS
    for tool in listed.values():
        assert tool.description and tool.output_schema, tool.name  # structured output beside the text
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), f"{tool.name}.{name} has no description"
    enum = lambda p: next(x["enum"] for x in listed["answer"].input_schema["properties"][p]["anyOf"] if "enum" in x)  # noqa: E731
    assert enum("check") == ["aws_region", "code_example", "no_deprecated"]
    assert enum("intent") == ["factual", "comparison", "how_to", "exploratory"]
    hints = {name: tool.annotations for name, tool in listed.items()}
    assert hints["search_corpus"].read_only_hint and hints["corpus_status"].read_only_hint
    assert hints["ingest"].idempotent_hint is False and hints["ingest"].destructive_hint
    assert hints["answer"].read_only_hint is False and hints["answer"].destructive_hint is False


def test_an_unknown_check_is_refused_by_the_schema(config):
    (result,) = call(create_mcp_server(fake_answerer(config), config), ("answer", {"question": "x", "check": "spelling"}))
    assert result.is_error and "check" in result.content[0].text


def test_bad_arguments_are_tool_errors_with_a_reason(config):
    server = create_mcp_server(fake_answerer(config), config)
    empty, budget, blank, pattern = call(server, ("answer", {"question": "  "}),
                                         ("answer", {"question": "x", "expansion_budget": -1}),
                                         ("search_corpus", {"query": " "}),
                                         ("answer", {"question": "x", "required": ["re:(?:(?:a{999}){999}){999}"]}))
    assert all(r.is_error for r in (empty, budget, blank, pattern))
    assert "question" in empty.content[0].text and "expansion_budget" in budget.content[0].text
    assert "not a regular expression this service runs in linear time" in pattern.content[0].text
    assert "empty" in blank.content[0].text


def test_a_session_id_carries_the_conversation_to_a_follow_up(config):
    server = create_mcp_server(fake_answerer(config), config)
    first, follow_up, refused = call(server, ("answer", {"question": "Who is Shirley Temple?", "session_id": "mcp-1"}),
                                     ("answer", {"question": FOLLOW_UP, "session_id": "mcp-1", "include_trace": True}),
                                     ("answer", {"question": FOLLOW_UP, "session_id": "a b"}))
    body = follow_up.structured_content
    assert first.structured_content["standalone_question"] == "" and body["standalone_question"] == STANDALONE
    assert body["trace"]["steps"][0]["action"] == "contextualize"
    assert refused.is_error and "session_id" in refused.content[0].text


def test_search_ingest_and_status_work_on_the_collection(config, tmp_path):
    guide = tmp_path / "quorvex.md"
    guide.write_text("# Quorvex valves\n\nQuorvex valves hold 300 bar and need a yearly torque check.\n")
    rooted = config.model_copy(update={"ingest_roots": [tmp_path]})
    server = create_mcp_server(fake_answerer(rooted), rooted)
    before, ingested, found, after, bad_url = call(
        server, ("corpus_status", {}), ("ingest", {"sources": [str(guide)]}),
        ("search_corpus", {"query": "Quorvex torque", "top_k": 2}),
        ("corpus_status", {}), ("ingest", {"sources": ["http://169.254.169.254/latest/meta-data"]}))
    assert before.structured_content["documents"] == 3 and before.structured_content["last_indexed"]
    assert (ingested.structured_content["documents"], ingested.structured_content["chunks"]) == (1, 1)
    hits = found.structured_content["result"]
    assert len(hits) == 2 and hits[0]["title"] == "Quorvex valves" and hits[0]["similarity"] > 0.3
    assert hits[0]["origin"] == str(guide.resolve()) and hits[0]["end"] > 0
    assert (after.structured_content["documents"], after.structured_content["chunks"]) == (4, 4)
    assert bad_url.is_error and "169.254.169.254" in bad_url.content[0].text


def test_files_outside_the_ingest_roots_are_refused(config, tmp_path):
    guide = tmp_path / "secret.md"
    guide.write_text("# Secret\n\nNot for remote callers.\n")
    unconfined = create_mcp_server(fake_answerer(config), config)
    elsewhere = config.model_copy(update={"ingest_roots": [tmp_path / "public"]})
    confined = create_mcp_server(fake_answerer(elsewhere), elsewhere)
    (no_roots,) = call(unconfined, ("ingest", {"sources": [str(guide)]}))
    (outside,) = call(confined, ("ingest", {"sources": [str(tmp_path / "public" / ".." / "secret.md")]}))
    assert no_roots.is_error and "no ingest_roots" in no_roots.content[0].text
    assert outside.is_error and "outside the configured ingest roots" in outside.content[0].text


def test_the_real_server_over_stdio_lists_its_tools_and_searches_without_an_lm(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, collection="pages")
    store = EdgeStore(settings.qdrant_path)
    build_index(store, settings)
    store.close()  # the embedded store locks its folder: the server process opens it next
    env = {"GATEDRAG_DATA_DIR": str(tmp_path), "GATEDRAG_COLLECTION": "pages", "GATEDRAG_WEB_BACKEND": "offline",
           "GATEDRAG_PROFILE": "local", "HF_HUB_OFFLINE": "1"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "program", "mcp"], env=env, cwd=str(PROJECT_ROOT))

    async def main():
        async with Client(params, read_timeout_seconds=120) as mcp:
            tools = {t.name for t in (await mcp.list_tools()).tools}
            status = await mcp.call_tool("corpus_status", {})
            found = await mcp.call_tool("search_corpus", {"query": "tallest tower in Paris", "top_k": 1})
            return tools, status, found

    tools, status, found = anyio.run(main)
    assert tools == TOOLS
    assert status.structured_content["documents"] == 3 and status.structured_content["collection"] == "pages"
    assert found.structured_content["result"][0]["title"] == "Eiffel Tower"
    assert not list((tmp_path / "models").glob("*.gguf"))  # the LM never started
