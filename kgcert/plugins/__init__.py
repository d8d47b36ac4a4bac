"""Plumbing for the parts kgcert finds by name (model providers, KG loaders, tasks,
textualizations, CLI commands): see :mod:`kgcert.plugins.registry`."""
