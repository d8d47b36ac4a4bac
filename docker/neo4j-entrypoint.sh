#!/bin/bash
# Starts Neo4j in the foreground the way the official image does for what kgcert uses:
#  - NEO4J_AUTH=neo4j/PASSWORD sets the initial password (kept across restarts with /data),
#    NEO4J_AUTH=none turns authentication off;
#  - each other NEO4J_<name> variable is a setting: "__" stands for "_" and "_" for ".",
#    e.g. NEO4J_server_memory_heap_max__size=512m -> server.memory.heap.max_size=512m;
#  - any other command (e.g. bash) runs instead of the server.
set -euo pipefail
conf="$NEO4J_HOME/conf/neo4j.conf"

if [ "${1:-neo4j}" != neo4j ]; then
  exec "$@"
fi

set_setting() {  # one line per key: a later value replaces the earlier one
  local key=$1 value=$2
  awk -F= -v key="$key" '$1 != key' "$conf" > "$conf.new"
  printf '%s=%s\n' "$key" "$value" >> "$conf.new"
  mv "$conf.new" "$conf"
}

set_setting server.directories.data /data
set_setting server.directories.logs /logs
set_setting server.directories.import /import
set_setting server.directories.run "$NEO4J_HOME/run"
set_setting server.default_listen_address 0.0.0.0

# Variables that configure this script or the image, not the server.
skip=" NEO4J_AUTH NEO4J_HOME NEO4J_EDITION NEO4J_ACCEPT_LICENSE_AGREEMENT NEO4J_PLUGINS "
while IFS='=' read -r name value; do
  case "$skip" in *" $name "*) continue ;; esac
  key=${name#NEO4J_}
  key=${key//__/@}; key=${key//_/.}; key=${key//@/_}
  set_setting "$key" "$value"
done < <(env | grep -E '^NEO4J_[A-Za-z0-9_]+=' || true)

auth=${NEO4J_AUTH:-}
if [ "$auth" = none ]; then
  set_setting dbms.security.auth_enabled false
elif [ -n "$auth" ]; then
  case "$auth" in
    neo4j/?*) ;;
    *) echo "NEO4J_AUTH must be neo4j/PASSWORD or none" >&2; exit 1 ;;
  esac
  if [ ! -e /data/dbms/auth.ini ]; then  # a kept /data keeps its password, as upstream
    setpriv --reuid=neo4j --regid=neo4j --init-groups \
      neo4j-admin dbms set-initial-password "${auth#neo4j/}" >/dev/null
  fi
fi

# A volume mounted over /data or /logs may belong to root: the server's user needs it.
chown neo4j:neo4j /data /logs
exec setpriv --reuid=neo4j --regid=neo4j --init-groups neo4j console
