"""JSON responses that cannot fail to encode, and error responses that never quote the request.

FastAPI's 422 repeats each invalid `input`, and Starlette encodes with `ensure_ascii=False` and
`allow_nan=False`, so a lone surrogate (`"\\ud800"`), a number out of float range (`1e999`) or a
deeply nested input turned a bad request into a 500. Here a 422 keeps each error's type, location,
message and broken limit, never its input, and every JSON response replaces what UTF-8 and JSON
cannot carry: a lone surrogate becomes U+FFFD, a non-finite float null.
This module does not validate requests; the models in `program.serving.answerer` do.
"""

from __future__ import annotations

import math
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

# subtle: a str holds a surrogate code point only when it is lone; json.loads joins a valid pair
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub(value: Any) -> Any:
    """`value` with each lone surrogate replaced by U+FFFD and each non-finite float by None."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v) for v in value]
    return value


class SafeJSONResponse(JSONResponse):
    """A JSONResponse that scrubs its content when the plain encoding fails, instead of raising."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except (UnicodeEncodeError, ValueError):  # a lone surrogate; a NaN or an infinity
            return super().render(scrub(content))


async def validation_error(request: Request, error: RequestValidationError) -> SafeJSONResponse:
    return SafeJSONResponse({"detail": [public_error(e) for e in error.errors()]}, 422)


async def http_error(request: Request, error: HTTPException) -> SafeJSONResponse:
    return SafeJSONResponse({"detail": error.detail}, error.status_code, headers=error.headers)


def public_error(error: dict) -> dict:
    """One validation error without the input it quotes; the limit it broke (`ctx`) as plain values."""
    kept = {"type": error["type"], "loc": list(error["loc"]), "msg": error["msg"]}
    if error.get("ctx"):
        kept["ctx"] = {k: v if isinstance(v, (str, int, float, bool)) else str(v) for k, v in error["ctx"].items()}
    return kept


def install_error_handlers(app: FastAPI) -> None:
    """Route every validation and HTTP error of `app` through the safe encoder."""
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)

