#!/usr/bin/env bash
# CI's Docker: the engine from Debian's packages, Compose v2 from Debian 13's package (Debian 12
# has only Compose v1, which lacks `up --wait`), the engine started when none answers, then
# docker/build-images.sh builds the base, Neo4j and kgcert images (Docker's layer cache keeps
# what an earlier run on this machine built). Exits non-zero, saying why, when any of it fails:
# .ci/run then lets the Docker tests skip. Must run as root. When it starts the engine itself it
# writes the engine's pid to /run/kgcert-ci-dockerd.pid, so that .ci/run stops it at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "ci-docker: $*" >&2; }
export DEBIAN_FRONTEND=noninteractive

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
  apt-get install -y -qq docker.io debootstrap >/dev/null
fi

if ! docker compose version >/dev/null 2>&1; then
  # Debian 13's docker-compose (a static Go binary needing only libc6 >= 2.34), fetched with
  # apt from Debian's own registry through a private source list, so the system's stays as it is.
  apt_dir=$(mktemp -d /tmp/kgcert-ci-apt.XXXXXX)
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo "deb http://deb.debian.org/debian trixie main" > "$apt_dir/sources.list"
  opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
        -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update -qq >/dev/null
  (cd "$apt_dir" && apt-get "${opts[@]}" download -qq docker-compose >/dev/null)
  dpkg -i "$apt_dir"/docker-compose_*.deb >/dev/null
  rm -rf "$apt_dir"
fi

if ! docker info >/dev/null 2>&1; then
  say "starting dockerd"
  setsid dockerd >/tmp/kgcert-ci-dockerd.log 2>&1 < /dev/null &
  echo $! > /run/kgcert-ci-dockerd.pid
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { say "dockerd did not answer in 60 s:"; tail -5 /tmp/kgcert-ci-dockerd.log >&2; exit 1; }
fi
say "engine $(docker info --format '{{.ServerVersion}}'), $(docker compose version --short 2>/dev/null || echo 'no compose')"

docker/build-images.sh
for image in kgcert-base:bookworm kgcert-neo4j:5.26-community kgcert:local; do
  say "$image: $(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')"
done
