"""The web search cache's on-disk format: JSON only, and never a pickle, whatever the folder holds.

diskcache pickles values by default, and even its `JSONDisk` unpickles a row stored in pickle
mode: an entry planted in a shared data folder (`<data dir>/web_cache`) ran `os.system` on the
next search for its query. `JsonOnlyDisk` writes JSON and reads a row in any other mode as a
miss. This module only stores; `program.retrieval.web_search` decides what to cache.
"""

from __future__ import annotations

from diskcache import JSONDisk
from diskcache.core import MODE_PICKLE


class NotJsonError(ValueError):
    """A cache row that is not this format's: read as a miss, never loaded."""


class JsonOnlyDisk(JSONDisk):
    def get(self, key, raw):
        if not raw:  # a key stored pickled
            raise NotJsonError("a pickled key in the web cache")
        return super().get(key, raw)

    def fetch(self, mode, filename, value, read):
        if mode == MODE_PICKLE:
            raise NotJsonError("a pickled value in the web cache")
        return super().fetch(mode, filename, value, read)
