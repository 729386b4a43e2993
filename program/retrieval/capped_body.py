"""Read a streamed HTTP response's body: inflated as its bytes arrive, refused past a size cap or a deadline.

Only the `identity`, `gzip` and `deflate` content encodings are read (`ACCEPT_ENCODING` is what the
fetch asks for). Each compressed piece is inflated at most up to the room left under the cap, so a
gzip bomb is refused once it has inflated one byte past the cap: memory stays about the cap whatever
the compression ratio (httpx's own decoder inflated a whole 64 KB network chunk, up to 64 MB, before
any size check). The deadline is checked as each network chunk arrives; how long one read may wait
is the request's timeout (`program.retrieval.fetch`).
This module does not open connections or check addresses; see `program.retrieval.fetch`.
"""

from __future__ import annotations

import time
import zlib

import httpx

from program.base.errors import IngestError
from program.base.redaction import shown_url

ACCEPT_ENCODING = "gzip, deflate"


def read_capped(response: httpx.Response, url: str, max_bytes: int, deadline: float) -> bytes:
    """The body, decoded from its content encoding; IngestError past `max_bytes` or `deadline` (time.monotonic)."""
    if response.is_stream_consumed:  # subtle: a response built in memory (a mock transport's) is read, and inflated, whole
        chunks, inflate = [response.content], _Inflater("", url)
    else:
        chunks, inflate = response.iter_raw(), _Inflater(response.headers.get("content-encoding", ""), url)
    body = bytearray()
    for chunk in chunks:
        if time.monotonic() > deadline:
            raise IngestError(f"{shown_url(url)} was still arriving at its fetch deadline; dropped")
        while chunk:
            piece, chunk = inflate(chunk, max_bytes + 1 - len(body))
            body += piece
            if len(body) > max_bytes:
                raise IngestError(f"{shown_url(url)} is larger than {max_bytes} bytes (ingest_max_bytes)")
    return bytes(body)


class _Inflater:
    """Inflates one content encoding piece by piece: `(data, room)` -> (at most `room` bytes out, input left over)."""

    def __init__(self, encoding: str, url: str):
        self.encoding, self.url = encoding.strip().lower(), url
        if self.encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise IngestError(f"{shown_url(url)} is sent as {encoding[:40]!r}; only gzip, deflate or no "
                              "content encoding can be read")
        self._z = None  # zlib's decompressor, made for the first piece

    def __call__(self, data: bytes, room: int) -> tuple[bytes, bytes]:
        if self.encoding in ("", "identity"):
            return data[:room], data[room:]
        if self._z is None:
            self._z = zlib.decompressobj(self._wbits(data))
        if self._z.eof:  # subtle: bytes after the stream's end (a second gzip member, padding) are not read
            return b"", b""
        try:
            out = self._z.decompress(data, room)
        except zlib.error:
            raise IngestError(f"{shown_url(self.url)} is not valid {self.encoding} data") from None
        left = self._z.unconsumed_tail
        return out, (b"" if not out and left == data else left)  # no progress: stop rather than spin

    def _wbits(self, first: bytes) -> int:
        if self.encoding != "deflate":
            return zlib.MAX_WBITS | 16  # a gzip header and trailer
        # deflate is meant to be zlib-wrapped, but some servers send the raw stream (httpx reads both)
        zlib_header = len(first) >= 2 and first[0] & 0x0F == 8 and ((first[0] << 8) | first[1]) % 31 == 0
        return zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS
