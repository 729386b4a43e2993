"""`python -m program.lm.serve_local`: the bundled model on llama.cpp's OpenAI-compatible server, as a
process of its own, the way a user's `llama-server` runs.

gatedrag (or any OpenAI client) then reaches it through an API LM:
`GATEDRAG_LM=openai/qwen2.5-coder-0.5b GATEDRAG_LM_API_BASE=http://127.0.0.1:8080/v1`. It binds 127.0.0.1
only, and runs until Ctrl-C or SIGTERM. This module only starts the server (`program.lm.local_lm.LocalServer`);
the local profile runs the same server inside the asking process instead.
"""

from __future__ import annotations

import argparse
import sys
import threading

from program.base.command_line import exit_with, run_command
from program.base.settings import Settings
from program.lm.local_lm import GGUF_SPECS, LocalServer, assemble_gguf

DEFAULT_PORT = 8080  # llama-server's


def serve(args: argparse.Namespace) -> int:
    settings = Settings(**({"local_model": args.local_model} if args.local_model else {}))
    server = LocalServer(assemble_gguf(settings.local_model, settings.model_cache), n_ctx=args.ctx_size,
                         slots=args.slots, port=args.port)
    print(f"llama.cpp serves {settings.local_model} at {server.base_url}/v1; use it with\n"
          f"  GATEDRAG_LM=openai/{settings.local_model} GATEDRAG_LM_API_BASE={server.base_url}/v1", flush=True)
    threading.Event().wait()  # until Ctrl-C (KeyboardInterrupt) or SIGTERM ends the process
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m program.lm.serve_local", description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; "
                   "0: a free one)")
    p.add_argument("--local-model", choices=list(GGUF_SPECS), help="default: GATEDRAG_LOCAL_MODEL, else the 0.5B")
    p.add_argument("--ctx-size", type=int, default=4096, help="context tokens of each slot (default 4096)")
    p.add_argument("--slots", type=int, default=1, help="requests answered at once, each in its own slot (default 1; "
                   "`optimize eval --workers N` keeps N in flight)")
    p.set_defaults(run=serve)
    return p


def main(argv: list[str] | None = None) -> int:
    return run_command(parser().parse_args(argv))


if __name__ == "__main__":
    exit_with(main())
