"""Writing a parsed KG as files for other tools (neo4j-admin bulk import)."""

from __future__ import annotations

from kgcert.export.neo4j_admin import ImportFiles, read_source, write_neo4j_admin

__all__ = ["ImportFiles", "read_source", "write_neo4j_admin"]
