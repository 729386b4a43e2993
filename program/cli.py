"""The `python -m program` command line: `index` builds the stores, `ingest` adds your own documents,
`ask` answers one question, `serve` runs the HTTP service and `mcp` the MCP server over stdio;
`migrate` rewrites a program or MLflow model saved under the old module paths.

Bad input (an empty or oversized question, an LM setting that cannot work, missing data or index, a compiled
program or store that cannot be read, a Qdrant server that does not answer) ends with a one-line
message and a non-zero exit, never a traceback.

Each command imports its own stack in its function ("deferred: ..."): DSPy, fastembed, Qdrant,
FastAPI and MCP each take a second or more to import, and `--help` or another command should not
pay for them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import get_args

from pydantic import ValidationError

from program.answer.criteria import CHECKS
from program.base.command_line import (
    UsageError,
    add_data_dir,
    add_lm,
    run_command,
    settings_from_args,
)
from program.base.settings import MAX_QUESTION_CHARS, Settings

SYSTEMS = get_args(Settings.model_fields["system"].annotation)


def main(argv: list[str] | None = None) -> int:
    return run_command(parser().parse_args(argv))


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m program", description="gatedrag: evaluation-gated retrieval")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    index = sub.add_parser("index", help="build or update a bundled domain's collection and its offline web corpus")
    index.add_argument("--corpus", choices=["hotpotqa", "aws_docs"], default="hotpotqa",
                       help="hotpotqa (default) or aws_docs (the AWS guides, collection aws_docs)")
    index.add_argument("--shared-data", type=Path, help="folder holding hotpotqa/ and aws_docs/ (default ../shared/data)")
    add_data_dir(index)
    index.add_argument("--collection", help="default: the corpus's name")
    index.add_argument("--no-progress", action="store_true", help="no progress bars")
    index.set_defaults(run=_index)

    ingest = sub.add_parser("ingest", help="index your own files, folders, archives or URLs, incrementally")
    ingest.add_argument("sources", nargs="+", metavar="PATH_OR_URL",
                        help="files, folders, .tar.gz/.tgz/.zip archives, or http(s) URLs")
    ingest.add_argument("--collection", help="default: the configured collection")
    ingest.add_argument("--include", action="append", default=[], metavar="GLOB",
                        help="keep paths inside folders and archives matching this (repeatable; default: every "
                        "supported suffix: .md .markdown .rst .py .txt .html .htm .json .jsonl .ts .mts .tsx .rs "
                        ".go; JavaScript only when included, e.g. --include '*.js')")
    ingest.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip matching paths (repeatable)")
    ingest.add_argument("--prune", action="store_true", help="delete documents of these roots whose files are gone")
    ingest.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help=(
        "embed on a Ray cluster's actors (needs pip install -e '.[scale]'): ADDRESS, else $GATEDRAG_RAY_ADDRESS, else "
        "RAY_ADDRESS, else a Ray started here for the run; setting GATEDRAG_RAY_ADDRESS alone also turns this on"))
    ingest.add_argument("--ray-actors", type=int, metavar="N",
                        help="embedding actors, one CPU each (default: one per CPU of the cluster)")
    add_data_dir(ingest)
    ingest.add_argument("--no-progress", action="store_true", help="no progress bars")
    ingest.set_defaults(run=_ingest)

    ask = sub.add_parser("ask", help="answer a question with citations and a decision trace")
    ask.add_argument("question")
    ask.add_argument("--json", action="store_true", help="print the response contract as JSON (the same as HTTP /answer; "
                     "schema: program/contract/answer_response.schema.json)")
    ask.add_argument("--trace", action="store_true", help="with --json, include the decision trace")
    add_lm(ask)
    ask.add_argument("--program", type=Path, help="a compiled program JSON (prompts, demos, thresholds)")
    add_system(ask)
    add_data_dir(ask)
    ask.add_argument("--collection", help="the collection to answer from (default hotpotqa)")
    ask.add_argument("--web", choices=["tavily", "offline", "none"], help="the web backend (default: tavily if "
                     "TAVILY_API_KEY is set, else the collection's offline web corpus if it has one)")
    ask.add_argument("--require", action="append", default=[], metavar="ELEMENT",
                     help='what the answer must contain (repeatable): plain text, matched case-insensitively as whole '
                     'words, or "re:" and a regular expression; a failed one buys one repair')
    ask.add_argument("--prohibit", action="append", default=[], metavar="ELEMENT",
                     help="what the answer must not contain (repeatable), written as for --require")
    ask.add_argument("--check", choices=sorted(CHECKS), help="a named domain check of the answer")
    ask.add_argument("--max-iterations", type=int)
    ask.add_argument("--max-doc-queries", type=int)
    ask.add_argument("--max-web-searches", type=int)
    ask.add_argument("--url", help="a seed page: ingested into the collection first (if new), then the gate may follow "
                     "its links (expand_breadth); a local host must be in GATEDRAG_FETCH_ALLOW_HOSTS")
    ask.add_argument("--no-cache", action="store_true", help="skip DSPy's response cache: every LM step is asked "
                     "again (to time a real run; a question asked before is otherwise answered from the cache)")
    ask.add_argument("--session", metavar="ID", help="continue this conversation: a follow-up (\"What about its "
                     "pricing?\") is rewritten with its recent turns, kept under <data dir>/sessions between runs")
    ask.set_defaults(run=_ask)

    for name, help_text, run in (("serve", "run the HTTP service (POST /answer, /healthz, /readyz, /docs)", _serve),
                                 ("mcp", "run the MCP server over stdio", _mcp)):
        command = sub.add_parser(name, help=help_text)
        command.add_argument("--program", type=Path, help="a compiled program JSON (prompts, demos, thresholds)")
        add_lm(command, local_model=False)
        add_system(command)
        add_data_dir(command)
        command.add_argument("--collection", help="the collection served by default (requests may name another)")
        command.add_argument("--web", choices=["tavily", "offline", "none"])
        command.add_argument("--timeout", type=float, help="soft per-request limit in seconds (default 60)")
        if name == "serve":
            command.add_argument("--host", help="address to bind (default 127.0.0.1; 0.0.0.0 exposes the service)")
            command.add_argument("--port", type=int, help="default 8000")
        command.set_defaults(run=run)

    migrate = sub.add_parser("migrate", help="rewrite a program or MLflow model saved before program/ was regrouped")
    migrate.add_argument("old", metavar="OLD", help="a program file, a folder (a run folder, a downloaded model), "
                         "or an MLflow model URI (runs:/..., models:/...) whose files are on this machine")
    migrate.set_defaults(run="program.assembly.migration:command")
    return parser


def add_system(command: argparse.ArgumentParser) -> None:
    command.add_argument("--system", choices=SYSTEMS, help="what answers (GATEDRAG_SYSTEM): the gated loop (default), "
                         "or a baseline `optimize eval` found gives more right answers a minute on your questions")


def _index(args: argparse.Namespace) -> int:
    # deferred: fastembed and the store
    from program.retrieval.bundled import build_corpus

    args.collection = args.collection or args.corpus
    settings = settings_from_args(args, shared_data="shared_data", data_dir="data_dir", collection="collection")
    for line in build_corpus(args.corpus, settings, progress=not args.no_progress):
        print(line)
    return 0


def _ingest(args: argparse.Namespace) -> int:
    # deferred: fastembed, the store and the readers
    from program.retrieval.ingest import ingest

    settings = settings_from_args(args, data_dir="data_dir", ray_actors="ray_actors")
    writer = None
    if args.ray is not None or settings.ray_address:
        from program.retrieval.ray_writer import ray_writer  # deferred: Ray, only for a run on it

        address = args.ray or settings.ray_address or None  # `--ray` alone: the setting, else Ray's default
        writer = ray_writer(settings.model_copy(update={"ray_address": address}))
    report = ingest(args.sources, settings, collection=args.collection, include=args.include, exclude=args.exclude,
                    prune=args.prune, progress=not args.no_progress, writer=writer)
    for error in report.errors:
        print(f"error: {error}", file=sys.stderr)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    print(report.summary())
    return 1 if report.errors else 0


def _ask(args: argparse.Namespace) -> int:
    question = args.question.strip()
    if not question:
        raise UsageError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise UsageError(f"the question has {len(question)} characters; the limit is {MAX_QUESTION_CHARS}")
    hints = _hints(args)  # before anything loads: a bad pattern changes nothing
    if args.session is not None:
        # deferred: DSPy, through the signatures
        from program.sessions.conversation import check_session_id

        try:
            check_session_id(args.session)
        except ValueError as error:
            raise UsageError(str(error)) from None
    settings = settings_from_args(args, profile="profile", local_model="local_model", data_dir="data_dir",
                                  collection="collection", web_backend="web", system="system")
    _check_lm(settings)
    return _answer(question, hints, settings, args)


def _hints(args: argparse.Namespace):
    from program.hints import Hints  # deferred: DSPy, through the signatures

    try:
        return Hints(required=args.require, prohibited=args.prohibit, check=args.check)
    except ValidationError as error:
        first = error.errors()[0]
        flag = {"required": "--require", "prohibited": "--prohibit"}.get(str(first["loc"][0]), "--check")
        raise UsageError(f"{flag} {first['input']!r}: {first['msg'].removeprefix('Value error, ')}") from None


def _answer(question: str, hints, settings, args: argparse.Namespace) -> int:
    # deferred: DSPy, fastembed, the store and the LM runtime
    from program.assembly.factory import build_served
    from program.contract.answer_response import respond
    from program.contract.render import render_result
    from program.lm.lm_profiles import configure_lm
    from program.sessions.file_store import FileSessionStore

    budgets = {k: getattr(args, k) for k in ("max_iterations", "max_doc_queries", "max_web_searches") if getattr(args, k) is not None}
    rag = build_served(settings, program_path=args.program, overrides=budgets, seeded=bool(args.url))
    if args.session:
        rag.sessions = FileSessionStore.from_settings(settings)  # with no server, the next `ask` is another process
    with configure_lm(settings, cache=not args.no_cache):
        result = rag(question=question, hints=hints, session_id=args.session, url=args.url).result
    print(respond(result, include_trace=args.trace).model_dump_json(indent=2) if args.json else render_result(result))
    return 0 if result.trace.ended != "error" else 1


def _serve(args: argparse.Namespace) -> int:
    from program.serving.service import serve  # deferred: FastAPI and the whole loop

    serve(_serving_settings(args, serve_host="host", serve_port="port"), program_path=_program_path(args))
    return 0


def _mcp(args: argparse.Namespace) -> int:
    # deferred: the MCP SDK and the whole loop
    from program.serving.mcp_server import run_stdio

    run_stdio(_serving_settings(args), program_path=_program_path(args))
    return 0


def _serving_settings(args: argparse.Namespace, **names: str):
    settings = settings_from_args(args, profile="profile", data_dir="data_dir", serve_timeout_s="timeout",
                                  collection="collection", web_backend="web", system="system", **names)
    _check_lm(settings)  # the service loads its LM in the background: a bad setting must end the start instead
    return settings


def _check_lm(settings: Settings) -> None:
    """A bad API LM setting ends in one line now, before a store opens or a URL is ingested."""
    from program.lm.lm_profiles import serving_lm  # deferred: DSPy

    serving_lm(settings)


def _program_path(args: argparse.Namespace) -> Path | None:
    if args.program is not None and not args.program.is_file():
        raise UsageError(f"no compiled program at {args.program}")
    return args.program
