"""Importing cards and rulings: reading files (`sources`) within their limits (`limits`),
validating records (`records`), French faces of multi-face cards (`french_faces`), Gatherer's
heading lines (`headings`), and the atomic, idempotent import itself (`cards`).
"""
