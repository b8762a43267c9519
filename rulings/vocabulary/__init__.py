"""The French names of the rules' keywords, mined from cards printed in both languages
(`mining`), with the French word forms the rules use (`french_forms`).
"""
