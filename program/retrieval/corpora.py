"""The two HotpotQA corpora, as Documents: the local index and the offline "web".

Local: every unique paragraph of the 500 dev questions, minus the held-out gold paragraphs named
in `splits.json` ("web_holdout_title_by_qid"). Web: those held-out paragraphs plus the 994 pages
of `train_100_corpus.json` as distractors. A held-out paragraph is never in the local corpus.
A damaged data file fails in one line naming it and the line (`program.base.errors.BadFileError`).
This module only reads `settings.hotpotqa_dir`; it does not index (see `program.retrieval.indexing.build_indexes`).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel, ValidationError

from program.base.errors import BadFileError, first_problem
from program.base.json_file import parse_json
from program.base.json_file import read_json as read_json_file
from program.base.settings import Settings
from program.retrieval.chunking import Document

DEV = "dev_distractor_500.jsonl"
SPLITS = "splits.json"
TRAIN_CORPUS = "train_100_corpus.json"


class DataNotFoundError(FileNotFoundError):
    """A labelled-data file is missing where the settings say it is."""


def local_documents(settings: Settings) -> list[Document]:
    held_out = holdout_titles(settings)
    return [_document(title, text) for title, text in dev_paragraphs(settings).items() if title not in held_out]


def web_documents(settings: Settings) -> list[Document]:
    dev = dev_paragraphs(settings)
    pages = {title: dev[title] for title in holdout_titles(settings)}
    # subtle: corpus sentences carry their leading space, so joining with one more space gives
    # the two-space separation the dev paragraphs have
    pages.update({title: " ".join(sentences) for title, sentences in read_json(settings, TRAIN_CORPUS).items()})
    return [_document(title, text) for title, text in pages.items()]


def holdout_titles(settings: Settings) -> set[str]:
    """Titles of the gold paragraphs kept out of the local index, to be found on the web only."""
    return set(read_json(settings, SPLITS)["web_holdout_title_by_qid"].values())


class _Paragraph(BaseModel):
    title: str
    paragraph_text: str


class _DevRow(BaseModel):
    contexts: list[_Paragraph]


def dev_paragraphs(settings: Settings) -> dict[str, str]:
    """title -> paragraph text, pooled over the 500 dev questions (a title has one paragraph); a damaged
    line is one BadFileError naming it."""
    path, paragraphs = data_file(settings, DEV), {}
    for n, line in enumerate(path.read_bytes().split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            row = _DevRow.model_validate(parse_json(line, str(path), BadFileError, first_line=n))
        except ValidationError as error:
            raise BadFileError(f"{path} line {n}: {first_problem(error)}") from None
        paragraphs.update((c.title, c.paragraph_text) for c in row.contexts)
    return paragraphs


def wikipedia_url(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + quote(title.replace(" ", "_"), safe="_()',!:-.")


def _document(title: str, text: str) -> Document:
    return Document(doc_id=title.replace(" ", "_"), title=title, text=text, url=wikipedia_url(title))


def read_json(settings: Settings, name: str) -> dict:
    # These two are single JSON objects (a config and a title -> sentences map), not record
    # files, so `datasets` cannot load them as tables.
    return read_json_file(data_file(settings, name), BadFileError)


def data_file(settings: Settings, name: str) -> Path:
    path = settings.hotpotqa_dir / name
    if not path.is_file():
        raise DataNotFoundError(
            f"HotpotQA file not found: {path}. gatedrag reads it from {settings.hotpotqa_dir} "
            f"(the hotpotqa folder of the shared data dir {settings.shared_data}); set "
            "GATEDRAG_SHARED_DATA to the folder that holds hotpotqa/ to change it."
        )
    return path
