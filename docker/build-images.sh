#!/usr/bin/env bash
# Builds kgcert's images from nothing but Debian's and PyPI's registries (no Docker Hub):
#   kgcert-base:bookworm          Debian 12 minbase, made by debootstrap and `docker import`
#   kgcert-neo4j:5.26-community   Neo4j 5.26 Community from ../shared/neo4j on that base
#   kgcert:local                  kgcert and its embedded server on that base
# Usage (as root, Docker running, from anywhere): docker/build-images.sh [base|neo4j|kgcert]...
# (no argument: all three). The base is made once and kept; the other two use Docker's layer
# cache, so a rebuild without changes takes seconds. KGCERT_SHARED names the shared/ folder
# (default: the one beside the repository). Names can be changed with KGCERT_BASE_IMAGE,
# KGCERT_NEO4J_IMAGE and KGCERT_IMAGE.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${KGCERT_SHARED:-$repo/../shared}
base_image=${KGCERT_BASE_IMAGE:-kgcert-base:bookworm}
neo4j_image=${KGCERT_NEO4J_IMAGE:-kgcert-neo4j:5.26-community}
kgcert_image=${KGCERT_IMAGE:-kgcert:local}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
neo4j_tarball=neo4j-community-5.26.19-unix.tar.gz

say() { echo "build-images: $*" >&2; }

build_base() {
  if docker image inspect "$base_image" >/dev/null 2>&1; then
    say "$base_image is there already"; return
  fi
  command -v debootstrap >/dev/null || { say "debootstrap is needed (apt-get install debootstrap)"; exit 3; }
  local root
  root=$(mktemp -d "${TMPDIR:-/tmp}/kgcert-rootfs.XXXXXX")
  trap 'rm -rf "$root"' RETURN
  say "debootstrap bookworm into $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
  # The package lists and downloaded .debs are of no use in an image.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import --change 'CMD ["bash"]' - "$base_image" >/dev/null
  say "built $base_image"
}

build_neo4j() {
  local tarball="$shared/neo4j/$neo4j_tarball"
  [ -f "$tarball" ] || { say "no Neo4j tarball at $tarball (set KGCERT_SHARED)"; exit 3; }
  # The context is streamed as a tar: just the Dockerfile, the entrypoint and the server's tarball.
  tar -c -C "$repo/docker" neo4j.Dockerfile neo4j-entrypoint.sh -C "$shared/neo4j" "$neo4j_tarball" \
    | docker build --quiet --build-arg "BASE_IMAGE=$base_image" -f neo4j.Dockerfile -t "$neo4j_image" - >/dev/null
  say "built $neo4j_image"
}

build_kgcert() {
  # Only what `pip install .` needs goes into the context; the local CA certificates go along so
  # that pip inside the build trusts what the host trusts (e.g. behind a TLS-inspecting proxy).
  local cas
  cas=$(mktemp -d "${TMPDIR:-/tmp}/kgcert-cas.XXXXXX")
  trap 'rm -rf "$cas"' RETURN
  mkdir "$cas/local-ca"
  cp /usr/local/share/ca-certificates/*.crt "$cas/local-ca/" 2>/dev/null || true
  tar -c --exclude=__pycache__ -C "$repo" docker/kgcert.Dockerfile pyproject.toml README.md \
      kgcert cypher specs loaders -C "$cas" local-ca \
    | docker build --quiet --build-arg "BASE_IMAGE=$base_image" -f docker/kgcert.Dockerfile \
        -t "$kgcert_image" - >/dev/null
  say "built $kgcert_image"
}

[ $# -gt 0 ] || set -- base neo4j kgcert
for step in "$@"; do
  case "$step" in
    base) build_base ;;
    neo4j) build_neo4j ;;
    kgcert) build_kgcert ;;
    *) say "unknown step $step (base, neo4j or kgcert)"; exit 2 ;;
  esac
done
