"""kgcert."""
