# kgcert and its embedded graph server (arcadedb-embedded ships its own Java runtime) on the
# local Debian base; docker/build-images.sh builds it. Run it against a mounted data dir, a
# mounted runs folder and, with --db, a Neo4j such as docker/compose.yaml's:
#   docker run --rm --network host -v "$PWD/kgcert-data:/data" -v "$PWD/runs:/work/runs" \
#     kgcert:local kgcert info
# Build context (the script assembles it): pyproject.toml, README.md, kgcert/, cypher/, specs/,
# loaders/, this file and local-ca/ (CA certificates the host trusts beyond Debian's).
ARG BASE_IMAGE=kgcert-base:bookworm

FROM ${BASE_IMAGE} AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# pip runs here only, so the final image carries neither pip's caches nor the build's CAs.
FROM runtime AS build
COPY local-ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python3 -m venv /opt/kgcert
# The dependencies first, in a layer of their own: a change to kgcert's code alone then
# rebuilds from the next step in seconds.
COPY pyproject.toml /src/
RUN python3 -c 'import tomllib; print(*tomllib.load(open("/src/pyproject.toml", "rb"))["project"]["dependencies"], sep="\n")' > /src/dependencies.txt \
 && /opt/kgcert/bin/pip install --quiet -r /src/dependencies.txt
COPY README.md /src/
COPY kgcert /src/kgcert
COPY cypher /src/cypher
COPY specs /src/specs
COPY loaders /src/loaders
RUN /opt/kgcert/bin/pip install --quiet --no-deps /src

FROM runtime
COPY --from=build /opt/kgcert /opt/kgcert
# The data dir is /data and runs go to /work/runs; each command runs its own embedded server
# (a warm background server would die with a one-shot container anyway).
ENV PATH=/opt/kgcert/bin:${PATH} KGCERT_DATA_DIR=/data KGCERT_NO_SERVER=1
WORKDIR /work
CMD ["kgcert", "--help"]
