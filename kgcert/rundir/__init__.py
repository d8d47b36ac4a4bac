"""The run directory: where every file of a run lives (`layout`), the typed sample and
records those files hold (`sample_record`, `outcomes`; certificates are
`kgcert.certify.record.Certificate`), and how they are written and read (`run_dir.RunDir`,
`sample_log`, `atomic`).

Light on purpose (json and yaml only): `kgcert runs` and `kgcert show` read run directories
and must start fast.
"""
