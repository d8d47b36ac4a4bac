"""kgcert run: the orchestration of a run (settings, jobs, asking the models, looks, resume).

What a run writes is read and written through `kgcert.rundir`; race comparisons live in
`kgcert.certify`, the stop rules in `kgcert.stats`, whole-run simulations in
`kgcert.simulate`. Reports and exports import nothing from here, write-back only the run's
settings type (tests/project/test_import_graph.py keeps it so).
"""
