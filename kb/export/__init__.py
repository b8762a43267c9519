"""Bulk export: one JSON file per release, the files other apps register (cards and rulings),
a manifest with checksums; and the import of such an export into an empty database.

`files` writes and reads the bytes (deterministic gzip JSON, checksums, the folder swap),
`releases` turns the archive into per-release objects and back, `bulk` joins them with the
parts other apps register through `kb.hooks.register_export_part`.
"""
