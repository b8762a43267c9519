"""The rules archive: matching releases, maintaining versions and lineages, importing."""
