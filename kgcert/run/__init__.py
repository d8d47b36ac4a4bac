"""kgcert run: certificates end to end."""
