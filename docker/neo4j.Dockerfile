# Neo4j 5.26 Community on the local Debian base (docker/build-images.sh builds both), for hosts
# that cannot pull neo4j:5.26-community. It answers to what docker/compose.yaml and the test
# suite's testcontainers fixture use of the official image: NEO4J_AUTH, NEO4J_<setting> variables,
# /data, /import, /logs, cypher-shell on the PATH, Bolt 7687 and HTTP 7474 on every interface.
# Build context: this file, neo4j-entrypoint.sh and the Neo4j tarball (the script assembles it).
ARG BASE_IMAGE=kgcert-base:bookworm
FROM ${BASE_IMAGE}

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless \
 && rm -rf /var/lib/apt/lists/*

# ADD unpacks a local tarball, so the archive itself never becomes a layer.
ARG NEO4J_TARBALL=neo4j-community-5.26.19-unix.tar.gz
ARG NEO4J_DIR=neo4j-community-5.26.19
ADD ${NEO4J_TARBALL} /var/lib/
ENV NEO4J_HOME=/var/lib/neo4j
ENV PATH=${NEO4J_HOME}/bin:${PATH}

# Only the directories the server writes are handed to its user: a chown of the whole tree
# would copy every file into one more layer. The tarball's neo4j.conf may pin memory sizes and
# loopback addresses; those lines go, so that, as upstream, the server's defaults and the
# NEO4J_<setting> variables decide (the entrypoint listens on every interface).
RUN ln -s /var/lib/${NEO4J_DIR} ${NEO4J_HOME} \
 && sed -i -E '/^server\.(memory\.|default_listen_address|bolt\.listen_address|http\.listen_address|https\.listen_address|directories\.)/d' \
      ${NEO4J_HOME}/conf/neo4j.conf \
 && groupadd --system --gid 7474 neo4j \
 && useradd --system --uid 7474 --gid neo4j --home-dir ${NEO4J_HOME} --no-create-home neo4j \
 && mkdir -p /data /logs /import ${NEO4J_HOME}/run \
 && chown neo4j:neo4j /data /logs /import ${NEO4J_HOME}/run

COPY neo4j-entrypoint.sh /usr/local/bin/neo4j-entrypoint.sh
VOLUME ["/data", "/logs"]
EXPOSE 7474 7687
WORKDIR ${NEO4J_HOME}
ENTRYPOINT ["/usr/local/bin/neo4j-entrypoint.sh"]
CMD ["neo4j"]
