"""Plumbing every package uses: files written whole, YAML read strictly, data and cache
locations, path checks, per-sample random streams, prompt defaults, lazy package attributes.

The lowest layer: nothing here imports a kgcert package but kgcert.errors
(tests/project/test_import_graph.py keeps it so).
"""
