"""French beside English: which French text stands for a rule and how stale it is
(`status`), and the French glosses of rule terms (`glosses`).

The French import and the French parser live beside their English twins
(`kb.archive.french_import`, `kb.crtext.french_parser`).
"""
