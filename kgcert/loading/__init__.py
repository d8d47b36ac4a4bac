"""`kgcert load`: files through a loader into the graph server, guarded by a manifest.

- :mod:`~kgcert.loading.pipeline`: parse, then write all or nothing;
- :mod:`~kgcert.loading.manifest`: what was loaded, from which files, kept in the KG's
  database;
- :mod:`~kgcert.loading.progress`: the phases' progress, told to the CLI's display.

Loaders report progress through kgcert.loading.progress, so this package's import stays empty.
"""
