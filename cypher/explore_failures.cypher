// Exploring a certified run's failures in Neo4j Browser, or from the shell on either server
// (the embedded one included) with `kgcert query <name> --run runs/<run directory>`
// (`kgcert query --list` names the queries below and the parameters each needs).
//
// First write the run into its KG's database:
//     kgcert writeback runs/<run directory>
// which prints the run id. In Neo4j Browser, stay on the database kgcert loads into (`neo4j`,
// or $KGCERT_NEO4J_DATABASE; every KG there carries its own label KgcertKG_<kg>, and run ids
// keep runs of different KGs apart), set the parameters the queries use, then paste any query:
//     :param run => "<run id printed by kgcert writeback>"
//     :param certificate => "<a certificate key, from certificates_by_lower_bound>"
//     :param sample => "<a sample key, e.g. from wrong_chose_distractor>"
//
// The graph (see kgcert/writeback/__init__.py):
//     (:KgcertSample)-[:OF_CERTIFICATE]->(:KgcertCertificate)-[:IN_RUN]->(:KgcertRun)
//     (:KgcertSample)-[:USED {role}|ANSWER|CHOSE|DISTRACTOR|OPTION {number, role}]->(:Entity)
// A sample's outcome is correct, wrong, unparseable, error (the call failed) or skipped
// (the prompt was not built); "answered" samples are the first three, the ones a
// certificate's bounds count, and "failed" means answered but not correct. Every model and
// setting answers the same prompts, so a prompt counts once per model and setting.

// name: runs
// The runs written into this database, newest first.
MATCH (r:KgcertRun)
OPTIONAL MATCH (r)<-[:IN_RUN]-(c:KgcertCertificate)
RETURN r.id AS run, r.kg AS kg, r.created AS created, r.status AS status,
       count(c) AS certificates
ORDER BY created DESC, run

// name: certificates_by_lower_bound
// A run's certificates, weakest first: Clopper-Pearson bounds on P(correct) with their
// outcome counts (unparseable answers count as wrong in the bounds; errors are left out).
MATCH (c:KgcertCertificate)-[:IN_RUN]->(:KgcertRun {id: $run})
RETURN c.key AS certificate, c.spec AS spec, c.setting AS setting, c.model AS model,
       c.k AS k, c.n AS n, c.lower AS lower, c.upper AS upper, c.confidence AS confidence,
       c.wrong AS wrong, c.unparseable AS unparseable, c.error AS errors
ORDER BY lower, upper, certificate

// name: wrong_chose_distractor
// Wrong answers where the model chose a distractor: an entity whose edges in the context
// point the wrong way (Definition 2.3). Shows what was chosen instead of the answer.
MATCH (s:KgcertSample {run: $run, outcome: 'wrong'})-[:CHOSE]->(chosen:Entity)
MATCH (s)-[:DISTRACTOR]->(chosen)
MATCH (s)-[:ANSWER]->(answer:Entity)
RETURN s.key AS sample, s.spec AS spec, s.setting AS setting, s.model AS model,
       s.index AS index, s.question AS question, chosen.id AS chosen_id,
       chosen.name AS chosen, answer.id AS answer_id, answer.name AS answer
ORDER BY spec, setting, model, index

// name: distractor_pull
// Where the wrong answers went, per model and setting: the role of the chosen option
// (distractor, path: another entity of the question's pattern, related: a neighbour of it,
// random: another entity of the answer's type).
MATCH (s:KgcertSample {run: $run, outcome: 'wrong'})
RETURN s.model AS model, s.setting AS setting, s.chosen_role AS chosen_role,
       count(*) AS wrong
ORDER BY model, setting, wrong DESC, chosen_role

// name: entities_in_failures
// Accuracy per KG entity: the entities (pattern nodes) that appear most in failed samples,
// with how many answered samples used them and the accuracy there.
MATCH (s:KgcertSample {run: $run, answered: true})-[:USED]->(e:Entity)
WITH DISTINCT e, s
WITH e, count(s) AS samples, sum(CASE WHEN s.correct THEN 0 ELSE 1 END) AS failed
WHERE failed > 0
RETURN e.id AS id, e.name AS name, e.type AS type, samples, failed,
       toFloat(samples - failed) / samples AS accuracy
ORDER BY failed DESC, accuracy, id
LIMIT 25

// name: failures_by_relation
// Failure rate per relationship type of the prompts' DAG (or path) edges, per model.
MATCH (s:KgcertSample {run: $run, answered: true})
UNWIND s.relations AS relation
WITH s.model AS model, relation, count(s) AS samples,
     sum(CASE WHEN s.correct THEN 0 ELSE 1 END) AS failed
RETURN model, relation, samples, failed, toFloat(failed) / samples AS failure_rate
ORDER BY failure_rate DESC, model, relation

// name: unparseable_responses
// Responses the answer checker could not read, with the question they answer.
MATCH (s:KgcertSample {run: $run, outcome: 'unparseable'})
RETURN s.key AS sample, s.spec AS spec, s.setting AS setting, s.model AS model,
       s.index AS index, s.question AS question, s.response AS response,
       s.parse_note AS note
ORDER BY spec, setting, model, index

// name: model_disagreements
// Prompts one model answered correctly and another did not: the discordant pairs behind
// a paired comparison of the two models.
MATCH (hit:KgcertSample {run: $run, correct: true})
MATCH (miss:KgcertSample {run: $run, answered: true, correct: false})
WHERE miss.spec = hit.spec AND miss.setting = hit.setting
  AND miss.index = hit.index AND miss.model <> hit.model
RETURN hit.spec AS spec, hit.setting AS setting, hit.index AS index,
       hit.model AS right_model, miss.model AS failed_model,
       miss.outcome AS failed_outcome, miss.chosen_role AS failed_chose,
       hit.question AS question
ORDER BY spec, setting, index, right_model, failed_model

// name: certificate_samples
// The samples of one certificate with the entities each prompt used (role: pattern
// variable or path position) and the option chosen.
MATCH (s:KgcertSample)-[:OF_CERTIFICATE]->(:KgcertCertificate {key: $certificate})
OPTIONAL MATCH (s)-[u:USED]->(e:Entity)
WITH s, collect({role: u.role, id: e.id, name: e.name}) AS used
OPTIONAL MATCH (s)-[:CHOSE]->(chosen:Entity)
RETURN s.index AS index, s.outcome AS outcome, s.question AS question,
       s.chosen_role AS chosen_role, chosen.id AS chosen_id, chosen.name AS chosen,
       [x IN used WHERE x.id IS NOT NULL] AS entities
ORDER BY index

// name: sample_subgraph
// One sample in the graph view: the sample, the entities it is linked to and the KG edges
// among them (switch Browser to the graph view; the table has the same edges by id).
MATCH (s:KgcertSample {key: $sample})-[]->(e:Entity)
WITH s, collect(DISTINCT e) AS entities
UNWIND entities AS a
MATCH (a)-[r]->(b:Entity)
WHERE b IN entities
RETURN s, a, r, b, a.id AS source, type(r) AS type, b.id AS target
ORDER BY source, type, target
