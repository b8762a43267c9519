"""The search outbox: index changes recorded in the same transaction as the data they follow."""

from __future__ import annotations

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils.translation import gettext_lazy as _


class IndexOutbox(models.Model):
    """Documents of `group` (or every document of `kind` when group is "*") changed.

    Written in the transaction that changed the data, so a committed change is never lost by
    the index; drained by one writer at a time (search.indexing.drain).
    """

    kind = models.CharField(max_length=20)
    group = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("index outbox entry")
        verbose_name_plural = _("index outbox")

    def __str__(self) -> str:
        return f"{self.kind}:{self.group}"


# -- the PostgreSQL backend's index (search.backends.postgres): the index inside the database --
# The tables exist on every database (harmless and empty on SQLite); their text search
# configurations, GIN and trigram indexes are created only on PostgreSQL (migration 0002).


class IndexGeneration(models.Model):
    """One build of an index called `name`. Readers read the live generation; a rebuild
    fills a new one and swaps `live` in one transaction, so no reader sees a half index."""

    name = models.CharField(max_length=64)
    live = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["name"], condition=models.Q(live=True), name="search_one_live_generation"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} #{self.pk}{' (live)' if self.live else ''}"


class IndexedDocument(models.Model):
    """A SearchDocument as stored: what a hit shows, the filters, the original texts (titles,
    bodies, extras by language; snippets are highlighted from them)."""

    generation = models.ForeignKey(IndexGeneration, on_delete=models.CASCADE)
    doc_id = models.CharField(max_length=255)
    kind = models.CharField(max_length=20)
    grp = models.CharField(max_length=128)  # kind:group, what an edit re-indexes together
    key = models.CharField(max_length=128)
    ref = models.TextField(blank=True)
    handle = models.TextField(blank=True)  # the ref of documents looked up by it
    label = models.TextField(blank=True)
    number = models.CharField(max_length=64, blank=True)  # lower case
    chapter = models.CharField(max_length=64, blank=True)
    date = models.DateField(null=True)
    valid_from = models.DateField(null=True)
    valid_to = models.DateField(null=True)
    collapse = models.CharField(max_length=32, blank=True)
    titles = models.JSONField(default=dict)
    bodies = models.JSONField(default=dict)
    extras = models.JSONField(default=dict)
    keys = models.JSONField(default=dict)  # folded titles by language (autocomplete)
    names = models.JSONField(default=list)  # folded names, faces and short names (names_in)

    class Meta:
        indexes = [
            models.Index(fields=["generation", "doc_id"], name="search_doc_id"),
            models.Index(fields=["generation", "grp"], name="search_doc_group"),
            models.Index(fields=["generation", "number"], name="search_doc_number"),
            models.Index(fields=["generation", "handle"], name="search_doc_handle"),
        ]

    def __str__(self) -> str:
        return self.doc_id


class IndexedText(models.Model):
    """A document's texts in one language: `vector` analysed by the language's configuration
    (titles weight A, bodies B, extras C), `words` unstemmed (prefixes, A titles, B bodies)."""

    document = models.ForeignKey(IndexedDocument, on_delete=models.CASCADE)
    generation = models.ForeignKey(IndexGeneration, on_delete=models.CASCADE)
    lang = models.CharField(max_length=8)
    title_key = models.TextField(blank=True)
    vector = SearchVectorField(null=True)
    words = SearchVectorField(null=True)

    def __str__(self) -> str:
        return f"{self.document_id} ({self.lang})"


class IndexedWord(models.Model):
    """The words of the titles with how many titles hold them: the did-you-mean dictionary."""

    generation = models.ForeignKey(IndexGeneration, on_delete=models.CASCADE)
    word = models.CharField(max_length=128)
    count = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["generation", "word"], name="search_word_unique")
        ]

    def __str__(self) -> str:
        return self.word


class Vector(models.Model):
    """A passage's embedding by the semantic retriever's encoder, kept by a hash of the model
    and the exact text it was computed from: a release or an edit that leaves a text unchanged
    costs no new embedding, and one that changes it leaves the old vector unused (swept by
    search.semantic.store.sweep). float16, little-endian: 768 bytes for 384 dimensions."""

    key = models.CharField(max_length=64, primary_key=True)
    model = models.CharField(max_length=40)
    vector = models.BinaryField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("passage vector")
        verbose_name_plural = _("passage vectors")

    def __str__(self) -> str:
        return f"{self.model}:{self.key[:12]}"


class QueryMap(models.Model):
    """The semantic retriever's query map (search.semantic.adapter), fitted on the example
    questions for one set of passages: `key` hashes the model, the passages' texts and the
    examples, so a new release or an edited example fits a new one (seconds, in the index
    worker) and every process reads the same. float32, little-endian, dim x dim."""

    key = models.CharField(max_length=64, primary_key=True)
    model = models.CharField(max_length=40)
    matrix = models.BinaryField()
    examples = models.PositiveIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("query map")
        verbose_name_plural = _("query maps")

    def __str__(self) -> str:
        return f"{self.model}:{self.key[:12]} ({self.examples} examples)"
