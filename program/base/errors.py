"""Errors a user can act on, shared by the modules that raise them, and how a validation error reads.

Both command lines print any of these (and a store's `program.retrieval.store.StoreError`) as one
line, `error: <message>`, with exit code 1 (`program.cli.run_command`); the services report them
the same way. This module raises nothing itself.
"""

from pydantic import ValidationError


class ModelNotInstalledError(RuntimeError):
    """A package that ships model weights (or runs them) is not installed; the message names the pip command."""


class MissingExtraError(RuntimeError):
    """An optional extra (a package only some commands need) is not installed; the message names the pip command."""


class IngestError(ValueError):
    """A source cannot be ingested; the message says which and why."""


class BadFileError(ValueError):
    """A file gatedrag was given (a compiled program, labelled questions) that it cannot use: the message
    starts with the file and names the line or the field, e.g. `q.jsonl line 7: missing key 'question'`."""


def one_line(error: BaseException) -> str:
    """What a command line prints for an error: a settings error as its first bad field, any other
    message with its lines joined, so nothing a user acts on spans lines."""
    if isinstance(error, ValidationError):
        return f"invalid setting: {first_problem(error)}"
    return " ".join(str(error).split()) or type(error).__name__


def first_problem(error: ValidationError) -> str:
    """The first invalid field of a pydantic error and why, as `field.path: reason`; never the input,
    which may be long or a secret."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    reason = {"missing": "missing", "model_type": "should be a JSON object"}.get(
        first["type"], first["msg"].removeprefix("Value error, "))
    reason = reason[:1].lower() + reason[1:]
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where + ': ' if where else ''}{reason}{more}"
