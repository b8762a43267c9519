"""The Whoosh backend: Whoosh 2.7.4 exactly (pinned in pyproject.toml), on disk.

Whoosh is no longer maintained upstream, and this backend is not written against an API its
forks promise to keep: it patches Whoosh's posting format, reads its codec's private blocks and
columns, and subclasses or calls internals of its writer, table of contents and analyzers.
What follows is every such reach, so that a move to a fork or to another engine can be
priced.

Public, documented API (what a fork keeping Whoosh 2.7's API would keep): index.create_in,
open_dir and exists_in; the fields (ID, NUMERIC, STORED, TEXT, Schema); writers (add,
delete_by_term, commit, cancel) and MpWriter; searchers and readers (search with a
FieldFacet count, docs_for_query, stored_fields, doc_frequency, idf, avg_field_length,
leaf_searchers, leaf_readers, column_reader, iter_field, most_frequent_terms, up_to_date,
refresh); the query classes; query.matcher and its is_active/id/score/next; the analysis
filters and tokenizers and accent_map; the highlight fragmenter, scorer and Formatter.

Beyond it, by module:

- patches.py (applied when backend.py is imported) replaces three methods and one module
  global of the codec `whoosh.codec.whoosh3`: W3PerDocReader._cached_reader (remembers a
  missing length column), W3PostingsWriter._mini_ids and _mini_weights, and `whoosh3.dumps`
  (posting blocks pickled as typed arrays, protocol 4). They read the private attributes
  `_readers`, `_byteids`, `_ids` and `_weights`. The index files written are therefore not
  Whoosh's own byte for byte: their posting blocks hold arrays where Whoosh writes tuples.
- postings.py scores terms and phrases from the codec's posting blocks: it imports the
  private `_INT_SIZE` and `_lenfield` and the classes LENGTHS_COLUMN and W3LeafMatcher from
  `whoosh.codec.whoosh3`; walks a W3LeafMatcher's blocks through `_maxid`, `_next_block()`,
  `_read_data()`, `_data`, `_byteids`, `_read_values()` and `_values`; reads the lengths
  column's raw bytes through a segment reader's `_perdoc._cached_reader` (the patched method)
  and the column's `_dbfile`, `_basepos` and `_count`; takes deleted documents from a
  FilterMatcher's `_ids` and `child`; reads BM25F's per-field `_field_B`; decodes the
  Positions format's values by hand (an int, then pickled gaps without their STOP) and the
  lossy length byte with whoosh.util.numeric.byte_to_length; and sums a phrase's word scores in
  the order of Whoosh's binary tree of intersections, so that scores are Whoosh's to the bit.
- scoring.py evaluates the query tree with numpy instead of Whoosh's matchers: it reads the
  attributes of And, Or (`subqueries`, `minmatch`, `scale`), AndNot (`a`, `b`) and Phrase
  (`words`, `slop`), relies on Whoosh's arithmetic (a compound scores the sum of its matching
  children; ties go to the lower document number), and AtLeast subclasses Or.
- backend.py builds searching.Results directly from its own (score, docnum) list and reads its
  `top_n`; segments.py reads segment readers' `segment()` (segment_id, has_deletions,
  deleted_docs) to keep what it read per segment.
- folders.py knows the index folder's file names (Whoosh's `MAIN.tmp`, `_MAIN_<n>.toc`,
  segment files, `MAIN_WRITELOCK`) and calls the private TOC._pattern and
  TOC._segment_pattern and TOC.read to tell leftovers from live files.
- workers.py overrides MpWriter's private `_new_task` and builds SubWriterTask from
  MpWriter's attributes (storage, indexname, jobqueue, resultqueue, subargs, multisegment,
  tasks).
- analyzers.py's WordCache reads a composite analyzer's `items`, RegexTokenizer's
  `expression` and StopFilter's `renumber`; Whoosh pickles the analyzers' classes into each
  index by module path.

What moving to a fork (whoosh-reloaded, say) costs: changing the pin, then running
tests/search, whose Whoosh tests check each reach, the shortcuts against Whoosh's own
results (test_whoosh_patches, test_whoosh_scoring, test_results, test_whoosh_segments,
test_drain_killed, test_rebuild_killed, test_syntax's analyzers). A name the fork removed
fails loudly, at import (patches.py, postings.py, workers.py) or when first used (folders.py's
TOC methods, the matcher's and columns' attributes postings.py reads). One it kept but no
longer uses fails silently: a patch assigned to a method the fork no longer calls does nothing
(blocks written as tuples again: slower, still correct); postings' fast path declines what is
not read through W3LeafMatcher and a W3PerDocReader, and Whoosh scores it itself (correct,
several times slower on a cold query); folders.remove_scratch sweeps nothing if the file
names changed; a WordCache over changed filters may analyse differently. Each of those files
is then redone against the fork's internals, and every index is rebuilt (raise
folders.LAYOUT): the codec and the pickled schema are Whoosh 2.7.4's.

What moving to another engine costs: a new class implementing search.backend.SearchBackend
that passes tests/search/test_contract.py, as search/backends/postgres/ does; nothing of this
package is reused. The behaviours it must redo are the contract's and the site's: one
stop-word policy (search.words) in the engine's analysis, French accents folded before
stemming, rule numbers as exact boosted terms, prefixes on unstemmed titles and on stems,
release scopes, kind weights, collapse groups, coordination for long queries (AtLeast),
highlighted snippets, autocomplete and did-you-mean; and the ranking the relevance sets hold,
tuned on Whoosh's BM25F (docs/deploy.md gives PostgreSQL's scores on them). Outside this
package only search.analysis touches Whoosh (its Porter stemmer and English's analyzer, for
kb's site search, when called); the engine-neutral modules and the PostgreSQL backend import
none of it.
"""
