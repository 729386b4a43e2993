"""JSON and JSONL files of records, one document per record: `{"title", "text", "id"?, "url"?}`.

A `.json` file holds a list of records, a `.jsonl` file one record per non-blank line. One malformed
record fails the whole file (nothing of it is indexed), with an error naming the file and the
record's number (1-based). Fields other than these four are ignored.
This module does not chunk or index; see `program.retrieval.ingest`.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field, ValidationError

from program.base.errors import IngestError
from program.retrieval.chunking import Document
from program.retrieval.sources import SourceFile, source_id


class Record(BaseModel):
    title: str = Field(min_length=1)
    text: str = Field(min_length=1)
    id: str | int | None = None
    url: str = ""


def read_records(file: SourceFile, text: str) -> list[Document]:
    return [_document(file, n, _record(file, n, raw)) for n, raw in enumerate(_raw_records(file, text), start=1)]


def _raw_records(file: SourceFile, text: str) -> list:
    if file.path.lower().endswith(".jsonl"):
        lines = [line for line in text.splitlines() if line.strip()]
        return [_parse(file, n, line) for n, line in enumerate(lines, start=1)]
    records = _parse(file, None, text)
    if not isinstance(records, list):
        raise IngestError(f"{file.origin}: expected a JSON list of records, got {type(records).__name__}")
    return records


def _parse(file: SourceFile, n: int | None, text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        where = f"record {n}" if n is not None else f"line {error.lineno}"
        raise IngestError(f"{file.origin}: {where} is not valid JSON: {error.msg}") from None


def _record(file: SourceFile, n: int, raw) -> Record:
    try:
        return Record.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "record"
        raise IngestError(f"{file.origin}: record {n}: {field}: {first['msg']}") from None


def _document(file: SourceFile, n: int, record: Record) -> Document:
    # subtle: the record's own id when it has one, so reordering the file keeps ids; else its number
    key = f"id:{record.id}" if record.id is not None else f"#{n}"
    return Document(doc_id=source_id(file.root, file.path, key), title=record.title, text=record.text,
                    url=record.url or file.url, origin=file.origin, root=file.root)
