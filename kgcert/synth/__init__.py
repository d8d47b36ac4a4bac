"""Synthetic graphs in the layouts of real KG releases, for benchmarks and scale tests.

- :mod:`~kgcert.synth.primekg`: PrimeKG's kg.csv;
- :mod:`~kgcert.synth.wikidata5m`: the Wikidata5m release files.
"""
