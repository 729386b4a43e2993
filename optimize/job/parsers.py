"""The flags of `python -m optimize run` (the job) and `export`. Each names its recipe in
`optimize.job.command` by "module:function", imported only when that command runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from program.base.command_line import add_data_dir, add_lm


def add_parsers(sub, positive_int) -> None:
    run = sub.add_parser("run", help="compile prompts and thresholds (the default command); resumable")
    run.add_argument("--preset", default="quick", help="datasets/optimize/<preset>.toml (quick, standard, full)")
    run.add_argument("--config", type=Path, help="a TOML file overriding the preset")
    run.add_argument("--dataset", metavar="FILE|NAME", help=(
        "hotpotqa (default), aws_docs, or a labelled question file (.jsonl, .csv, .parquet) or saved dataset folder: "
        "builds demos from its train split and halves its validation/dev split into select and report questions "
        "(see datasets/README.md)"))
    run.add_argument("--val-split", help="the split select and report are carved from (default: the preset's for "
                                         "hotpotqa, else the dataset's validation split)")
    run.add_argument("--report-split", help="report on this split instead of half the validation split")
    run.add_argument("--optimizer", choices=["labelled", "bootstrap", "mipro", "gepa"],
                     help="labelled (default): demos from the train questions' gold answers and passages")
    run.add_argument("--teacher-model", help="the LM that bootstraps demos and proposes instructions: "
                     "qwen2.5-coder-1.5b, or any model string dspy.LM takes, such as openai/gpt-4o-mini, at "
                     "GATEDRAG_TEACHER_API_BASE if you serve it (docs/lms.md)")
    run.add_argument("--train-limit", type=positive_int)
    run.add_argument("--select-limit", type=positive_int, help="first N questions of the select set")
    run.add_argument("--report-limit", type=positive_int, help="first N questions of the report set")
    run.add_argument("--threshold-trials", type=int)
    run.add_argument("--report-rejected", action="store_true", default=None, help="when nothing ships, run the "
                     "compiled candidate on the report questions too, against the uncompiled program (one more run)")
    run.add_argument("--single-pass", action=argparse.BooleanOptionalAction, default=None, help="run single pass "
                     "beside the uncompiled program on the report questions (default: yes)")
    run.add_argument("--site", type=Path, help="a folder of the dataset's site pages: the link score's weights are "
                     "fitted to it, from --seed (aws_docs brings its guides)")
    run.add_argument("--seed", dest="seed_page", metavar="PAGE", help="the page in --site each question's walk starts "
                     "from; {top} stands for the first folder of the question's gold source")
    run.add_argument("--link-trials", type=int, help="link-weight trials (0: leave the link weights as they are)")
    run.add_argument("--latency-weight", type=float, help="how much latency counts when choosing on the Pareto front")
    run.add_argument("--latency-budget-s", type=float, help="choose the best quality within this latency instead")
    run.add_argument("--max-wrong-rate", type=float, metavar="A", help="answer only where the wrong rate among answers "
                     "stays at most A on questions like the select ones (conformal risk control); ships with the "
                     "learned release when it beats the program's own")
    run.add_argument("--max-lm-calls", type=positive_int)
    run.add_argument("--max-tokens", type=positive_int)
    run.add_argument("--max-dollars", type=float)
    run.add_argument("--resume", metavar="RUN_ID", help="continue this run (default: the last unfinished one of this config)")
    run.add_argument("--dry-run", action="store_true", help="estimate LM calls and cost, spend nothing")
    add_lm(run)
    add_data_dir(run)
    run.add_argument("--collection", help="the collection searched (default: the dataset's own for hotpotqa and "
                     "aws_docs, else the configured one)")
    run.add_argument("--workers", type=positive_int, help=(
        "questions in flight in the job's evals (default 8 for a served or hosted LM; always 1 for the local "
        "profile's in-process llama.cpp, which has one slot); the select runs, whose LM calls are recorded for the "
        "replay, run one question at a time"))
    run.add_argument("--no-progress", dest="progress", action="store_false")
    run.set_defaults(run="optimize.job.command:run_command")
    export = sub.add_parser("export", help="write a run's compiled prompts as readable text")
    export.add_argument("run_id")
    export.add_argument("--prompts", action="store_true", required=True, help="write each predictor's prompt "
                        "(instructions, fields, demos) as Markdown, and the thresholds as JSON")
    export.add_argument("--out", type=Path)
    add_data_dir(export)
    export.set_defaults(run="optimize.job.command:export_command")
