"""The flags of `python -m optimize eval`, `compare` and `corpora`. Each names its recipe in
`optimize.eval.command` by "module:function", imported only when that command runs
(`program.base.command_line.run_command`), so `--help` never pays for DSPy or MLflow.
"""

from __future__ import annotations

from pathlib import Path

from program.base.command_line import add_data_dir, add_lm

DEFAULT_TIMEOUT_S = 240.0
WORKERS_HELP = ("questions in flight, each with its own deadline and record (default 8 for a served or hosted LM). "
                "The local profile's in-process llama.cpp has one slot, so there it stays 1: more would only queue "
                "there and inflate each question's latency; serve the model with more slots and use it as an "
                "OpenAI-compatible endpoint to run questions in parallel")
DATASET_HELP = ("hotpotqa (default), aws_docs, or your own labelled questions: a .jsonl, .csv or .parquet file or a "
                "folder saved with save_to_disk (schema: datasets/README.md)")


def add_parsers(sub, positive_int) -> None:
    ev = sub.add_parser("eval", help="score the gated loop and its baselines on a split; resumable", description=(
        "Run each system on the split, append one JSONL line per question as it finishes, then write report.md, "
        "report.html and summary.json into the run folder and log the run to MLflow. Re-running the same "
        "command resumes: finished questions are never run again."))
    ev.add_argument("--dataset", default="hotpotqa", metavar="FILE|NAME", help=DATASET_HELP)
    ev.add_argument("--split", help=(
        "hotpotqa: smoke, dev, test or train; aws_docs: dev or test; a file: a value of its split column "
        "(default: every row). test is for final reports only"))
    ev.add_argument("--program", default="uncompiled", help="a compiled program JSON for the gated system, or 'uncompiled'")
    ev.add_argument("--systems", default="gated,single_pass,fixed_hops", help="comma-separated: gated (the rules' release), learned (the acceptance model's), single_pass, fixed_hops")
    ev.add_argument("--limit", type=positive_int, help="the first N questions of the split")
    ev.add_argument("--workers", "--threads", dest="workers", type=positive_int, help=WORKERS_HELP)
    ev.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help=(
        f"seconds per question (default {DEFAULT_TIMEOUT_S:g}): the LM call in flight is cancelled and the loop "
        "returns its draft; a question still running 10%% later is given up and recorded as a timeout"))
    ev.add_argument("--judge", default="lexical", choices=["lexical", "lm"], help="citation-support judge of the metrics")
    ev.add_argument("--cache", action="store_true", help="use DSPy's LM cache (cheaper re-runs, but latencies are not real)")
    ev.add_argument("--collection", help="the collection the systems search (default: the dataset's own for "
                    "hotpotqa and aws_docs, else the configured one)")
    ev.add_argument("--web", choices=["tavily", "offline", "none"], help=(
        "the web backend (default: tavily if TAVILY_API_KEY is set, else offline); none: the loop never searches the web"))
    ev.add_argument("--hide-gold", action="store_true", help=(
        "hide the documents each question's gold sources name (titles, or paths and URLs they came from) from the "
        "index search and the offline web corpus (a search filter; "
        "the index is unchanged): checks that the program abstains when the evidence lacks the answer"))
    add_lm(ev)
    ev.add_argument("--out", type=Path, help="the run folder (default: <data dir>/runs/<run id>)")
    add_data_dir(ev)
    ev.add_argument("--no-progress", dest="progress", action="store_false")
    ev.set_defaults(run="optimize.eval.command:eval_command")
    cmp = sub.add_parser("compare", help="metric deltas B-A with paired 95%% CIs, and flipped questions")
    cmp.add_argument("run_a", help="run id (under <data dir>/runs) or run folder")
    cmp.add_argument("run_b")
    cmp.add_argument("--out", type=Path, help="where to write the Markdown (default: <run B>/compare.md)")
    add_data_dir(cmp)
    cmp.set_defaults(run="optimize.eval.command:compare_command")
    side = sub.add_parser("corpora", help="several eval runs side by side: one row per corpus and system", description=(
        "Read each run's summary.json and print one table, a row per corpus and system: F1, evidence recall "
        "beside answer in evidence, abstention on answerable and unanswerable questions, right / wrong / abstained, "
        "net right (and against single pass), AURC, the confidence's AUROC and ECE, LM calls, prompt tokens and p50 "
        "against single pass in the same run; written as Markdown too."))
    side.add_argument("runs", nargs="+", help="run ids (under <data dir>/runs) or run folders")
    side.add_argument("--out", type=Path, required=True, help="where to write the Markdown table")
    add_data_dir(side)
    side.set_defaults(run="optimize.eval.command:corpora_command")
