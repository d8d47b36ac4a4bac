"""Simulations of whole runs: the real `Runner` over toy prompts and seeded models, repeated
to measure what the statistics promise (extension looks, reruns, race growth, suites).

Used by tests and benchmarks; nothing in a run or a report imports them.
"""
