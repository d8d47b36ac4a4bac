"""Certificates and comparisons: what a run's samples certify, built over `kgcert.stats`.

Nothing here asks a model or draws a prompt (that is `kgcert.run`); this package turns
sample records into the typed `Certificate` and the race comparisons, and renders their
sentences.
"""
