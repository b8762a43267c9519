"""Two changes to Whoosh 2.7.4 (pinned; the project is no longer maintained upstream), made by
replacing private methods of its codec, `whoosh.codec.whoosh3` (W3PerDocReader._cached_reader,
W3PostingsWriter._mini_ids and _mini_weights) and its module global `dumps`, when the backend
is imported. A fork that renames them leaves these assignments doing nothing, silently (the
tests, tests/search/test_whoosh_patches.py, say so); see the package's docstring for the cost
of switching.

A segment's per-document reader looks up a field's length column on every posting it writes
or scores, and remembers the column only when it exists: for fields without lengths (the ID
fields: kind, group, number, ...) every lookup asks the file system again. That was a sixth of
a full index build. Segments never change once written, so the answer "no such column" can be
kept like any other.

A block of postings is written as a pickled tuple of its document numbers (as deltas), weights
and values, with pickle protocol 2: the numbers and weights as tuples of Python ints and
floats, one object each to build again when the block is read. Reading them was most of the
time of a query on words not searched before (a third of it in `pickle.loads`). Written as
typed arrays with protocol 4, they are read back as one buffer each; Whoosh's own readers
iterate and index arrays as they do tuples, and indexes written before read as they did. The
files written are so no longer Whoosh's own format byte for byte.
"""

from __future__ import annotations

import pickle
from array import array

from whoosh.codec import whoosh3
from whoosh.util.numlists import delta_encode


def _cached_reader(self, fieldname, column):
    try:
        return self._readers[fieldname]
    except KeyError:
        reader = self.column_reader(fieldname, column) if self.has_column(fieldname) else None
        self._readers[fieldname] = reader
        return reader


def _mini_ids(self):
    if self._byteids:
        return tuple(self._ids)
    return array("I", delta_encode(self._ids))


def _mini_weights(self):
    weights = self._weights
    if all(w == 1.0 for w in weights):
        return None
    if all(w == weights[0] for w in weights):
        return weights[0]
    return array("f", weights)


def _dumps(obj, protocol=None) -> bytes:
    """Protocol 4 for what holds arrays (a block's data: arrays pickle as raw bytes from
    protocol 3 on, as lists of numbers before); the term infos and block headers as Whoosh
    writes them."""
    if isinstance(obj, tuple) and any(isinstance(part, array) for part in obj):
        return pickle.dumps(obj, 4)
    return pickle.dumps(obj, protocol)


def apply() -> None:
    whoosh3.W3PerDocReader._cached_reader = _cached_reader
    whoosh3.W3PostingsWriter._mini_ids = _mini_ids
    whoosh3.W3PostingsWriter._mini_weights = _mini_weights
    whoosh3.dumps = _dumps
