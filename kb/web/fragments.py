"""Rendered parts of long reading pages, cached per archive and vocabulary state.

A chapter page (702: some 1,250 entries) or the glossary spends nearly all its time rendering
and glossing entries that only change when the archive does (an import, a maintainer's edit)
or when the vocabulary does (glosses and French names). The key holds both stamps, so an edit
is read at once by every process sharing the cache: nothing is purged, stale keys expire.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.core.cache import cache

from kb.french import glosses
from kb.stamps import archive_generation

#: Seconds a fragment is kept; stale ones (an older stamp) are never read, only left to expire.
TIMEOUT = 24 * 3600


def cached(parts: tuple[object, ...], build: Callable[[], Any]) -> Any:
    """`build()`'s value, cached under `parts` (the page, its release token, language, viewer
    kind...) and the current stamps."""
    stamp = repr((parts, archive_generation(), glosses.vocabulary_stamp()))
    key = "kb-fragment-" + hashlib.blake2b(stamp.encode(), digest_size=12).hexdigest()
    found = cache.get(key)
    if found is not None:
        return found
    value = build()
    cache.set(key, value, timeout=TIMEOUT)
    return value
