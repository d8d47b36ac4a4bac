"""The run directory: where every file of a run lives (`layout`), the typed sample and
certificate records those files hold (`sample_record`, `certificate_record`, `outcomes`), and
how they are written and read (`sample_log`, `atomic`).

Light on purpose (json and yaml only): `kgcert runs` and `kgcert show` read run directories
and must start fast.
"""
