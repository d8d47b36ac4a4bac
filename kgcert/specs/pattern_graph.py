"""A parsed spec pattern: typed variables and directed, typed edges, and what a variable may be
called. Shared by the parser (kgcert.specs.pattern_parser, which imports ANTLR) and the cached
parse in kgcert.specs.pattern, which must not."""

from __future__ import annotations

import re
from collections import defaultdict, deque
from dataclasses import dataclass

VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED = {"cypher", "dag"}  # names a spec file uses for its own keys


@dataclass(frozen=True)
class PatternEdge:
    source: str
    rel_type: str
    target: str


@dataclass(frozen=True)
class PatternGraph:
    """Variables with their label (None: any entity) and the directed, typed edges."""

    labels: dict[str, str | None]
    edges: tuple[PatternEdge, ...]

    @property
    def variables(self) -> list[str]:
        return list(self.labels)

    def sinks(self) -> list[str]:
        has_out = {edge.source for edge in self.edges}
        return [var for var in self.labels if var not in has_out]

    def topological_order(self) -> list[str]:
        """Variables, sources first; ties keep the order of first appearance."""
        indegree = dict.fromkeys(self.labels, 0)
        children: dict[str, list[str]] = defaultdict(list)
        for edge in self.edges:
            indegree[edge.target] += 1
            children[edge.source].append(edge.target)
        ready = deque(var for var in self.labels if indegree[var] == 0)
        order: list[str] = []
        while ready:
            var = ready.popleft()
            order.append(var)
            for child in children[var]:
                indegree[child] -= 1
                if indegree[child] == 0:
                    ready.append(child)
        return order
