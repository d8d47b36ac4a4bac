"""Write-back: a run's certificates and samples as nodes in its KG's database, linked to the
KG entities each prompt used, for exploring failures in Neo4j Browser
(cypher/explore_failures.cypher holds the guide's queries).

Graph model (every label starts with Kgcert; links go from write-back nodes to entities):

    (:KgcertRun {id, kg, created, written, status, config, fingerprint, path, ...})
    (:KgcertCertificate {key, run, spec, setting, model, k, n, lower, upper, confidence,
                         method, correct, wrong, unparseable, refused, error, skipped, ...})
        -[:IN_RUN]->(run)
    (:KgcertSample {key, run, certificate, spec, setting, model, index, outcome, correct,
                    answered, in_bounds, parsed_option, chosen_role, question, response,
                    relations, ...})
        -[:OF_CERTIFICATE]->(certificate)
    (sample)-[:USED {role}]->(:Entity)        pattern variable or path position
    (sample)-[:ANSWER]->(:Entity)             the drawn answer
    (sample)-[:CHOSE]->(:Entity)              the option the model chose (when parsed)
    (sample)-[:DISTRACTOR]->(:Entity)         distractors whose edges were in the context
    (sample)-[:OPTION {number, role}]->(:Entity)  the options as shown

Run id: `<run directory name>@<config fingerprint>`; certificate key: `<run>|<spec>|<setting>|
<model>`; sample key: `<certificate key>|<index>`.
"""

from __future__ import annotations

from kgcert.writeback.run_files import (
    RunData,
    certificate_key,
    question_of,
    read_run,
    run_id,
    sample_key,
)
from kgcert.writeback.run_nodes import (
    COUNTED,
    LINK_TYPES,
    WriteResult,
    delete_run,
    ensure_schema,
    run_counts,
    write_run,
)

__all__ = [
    "COUNTED", "LINK_TYPES", "RunData", "WriteResult", "certificate_key", "delete_run",
    "ensure_schema", "question_of", "read_run", "run_counts", "run_id", "sample_key", "write_run",
]
