"""Benchmarks and evaluations, kept outside the apps so that no app ships measurement code.

Benchmarks (`make bench` runs bench.kb, bench.rulings, bench.search in that order) print
timings on the full shared data as figures for the issue notes rather than failing builds:
timings depend on the machine. Each builds a throwaway database (bench.environment) and reports
through bench.measure, so every figure and p95 is computed the same way.

Evaluations score quality against frozen, hand-labelled sets: search relevance
(bench.relevance), ruling links (bench.linking) and card-name search (bench.card_names). The
slow tests import them to assert their floors; the benchmarks print their scores.
"""
