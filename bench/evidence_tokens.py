"""What showing evidence as quoted data costs: the evidence of a prompt over each smoke
question's hits and web results, rendered the plain way (`[n] title: text`) and as the loop
renders it now (`[n] index «title: text»`, `[n] web host «…»`), counted with the local LM's
own tokenizer.

    python bench/evidence_tokens.py [N]

The first N smoke questions; retrieval and the offline web only, no LM call (the local model
is loaded for its tokenizer). Prints both renderings' tokens a prompt and their difference.
"""

from __future__ import annotations

import json
import statistics
import sys
import urllib.request

import program  # noqa: F401  (offline env vars first)
from program.assembly.factory import build_program
from program.base.settings import Settings
from program.evidence import EvidencePool, format_evidence
from program.gate import adaptive_cut
from program.lm.local_lm import LocalServer, assemble_gguf


def main(n: int) -> None:
    settings = Settings()
    splits = json.loads((settings.hotpotqa_dir / "splits.json").read_text())
    rows = {r["question_id"]: r for r in map(json.loads, (settings.hotpotqa_dir / "dev_distractor_500.jsonl").open())}
    rag = build_program(settings)
    t = rag.thresholds
    with LocalServer(assemble_gguf(settings.local_model, settings.model_cache), n_ctx=2048) as server:
        counts = [_counts(server.base_url, rag, rows[q]["question_text"], t) for q in splits["smoke_ids"][:n]]
    plain, quoted = zip(*counts)
    extra = [q - p for p, q in counts]
    print(f"{len(counts)} prompts' evidence, Qwen tokens: plain mean {statistics.mean(plain):.0f}, "
          f"quoted mean {statistics.mean(quoted):.0f}; added mean {statistics.mean(extra):.1f}, max {max(extra)}")


def _counts(base_url: str, rag, question: str, t) -> tuple[int, int]:
    pool = EvidencePool()
    pool.add(adaptive_cut(rag.search(question, t.candidates_k), t))
    if rag.web is not None:
        pool.add([r.to_passage() for r in rag.web.search(question, max_results=t.web_results)])
    shown = pool.render(question, t.evidence_tokens, t.passage_tokens, relevance_weight=t.relevance_weight)
    plain = "\n".join(f"[{s.n}] {s.passage.title}: {s.text}" for s in shown)
    return _tokens(base_url, plain), _tokens(base_url, format_evidence(shown))


def _tokens(base_url: str, text: str) -> int:
    request = urllib.request.Request(f"{base_url}/tokenize", data=json.dumps({"content": text}).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return len(json.loads(response.read())["tokens"])


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
