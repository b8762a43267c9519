"""The semantic retriever (issue 33): a sentence encoder beside the lexical index.

encoder: the model in numpy; weights: where its file comes from; store: vectors by text hash;
retriever: the corpus, `retrieve` (web requests) and `sync` (the index worker). Kept free of
imports here, so `python -m search.semantic.weights` runs without Django's settings.
"""
