#!/usr/bin/env bash
# Start a real Neo4j 5.26 LTS Community server without Docker, from the jars on Maven Central.
#
#   docker/neo4j.sh start     start (or find running) and print the Bolt URI as the last stdout line
#   docker/neo4j.sh stop      stop exactly the process `start` launched (pid file), wait for it to exit
#   docker/neo4j.sh status    "running <pid> <uri>" (exit 0) or "stopped" (exit 3)
#   docker/neo4j.sh uri       the Bolt URI of the running server
#   docker/neo4j.sh install   only fetch the jars into the cache (for CI cache warm-up)
#   docker/neo4j.sh admin ... run neo4j-admin against this instance, e.g.
#                             `admin database import full --nodes=... neo4j`
#
# Needs Java 17 or 21 (`java` on PATH, or JAVA / JAVA_HOME) and, for the first start only, Maven (`mvn`)
# with access to Maven Central. Progress goes to stderr; stdout carries only the URI.
#
# Environment:
#   NEO4J_VERSION      5.26 LTS patch release (default 5.26.30; must have a neo4j-community-standalone pom)
#   KG_CACHE           cache root (default ~/.cache/kg); jars go to $KG_CACHE/neo4j/neo4j-community-<version>/lib
#   NEO4J_INSTANCE     directory holding this server's conf/, data/, logs/, run/ (default $KG_CACHE/neo4j/instance);
#                      point it at a fresh directory for a throw-away database
#   NEO4J_BOLT_PORT    Bolt port on 127.0.0.1 (default: the instance's previous port if free, else a free one)
#   NEO4J_AUTH         "none" (default) or "neo4j/<password>" (password of 8+ characters), as in the Docker image;
#                      the password is set when the instance's system database is first created
#   NEO4J_HEAP         JVM heap (default 1g); NEO4J_PAGECACHE: page cache (default 512m)
#   NEO4J_START_TIMEOUT  seconds to wait for Bolt (default 180)
set -euo pipefail

NEO4J_VERSION=${NEO4J_VERSION:-5.26.30}
CACHE=${KG_CACHE:-${HOME}/.cache/kg}/neo4j
DIST=$CACHE/neo4j-community-$NEO4J_VERSION
INST=${NEO4J_INSTANCE:-$CACHE/instance}
HEAP=${NEO4J_HEAP:-1g}
PAGECACHE=${NEO4J_PAGECACHE:-512m}
START_TIMEOUT=${NEO4J_START_TIMEOUT:-180}
AUTH=${NEO4J_AUTH:-none}
PIDFILE=$INST/run/kg-neo4j.pid
PORTFILE=$INST/run/kg-neo4j.port

log() { printf 'neo4j.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

find_java() {
  local java=${JAVA:-}
  if [ -z "$java" ] && [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java=$JAVA_HOME/bin/java; fi
  java=${java:-java}
  command -v "$java" >/dev/null 2>&1 || die "java not found: install a Java 17 or 21 runtime (Debian: openjdk-17-jre-headless) or set JAVA"
  local major
  major=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p')
  case "$major" in
    17|21) ;;
    *) die "Neo4j $NEO4J_VERSION needs Java 17 or 21, but $java is Java ${major:-unknown}; set JAVA to a Java 17/21 binary" ;;
  esac
  JAVA_BIN=$java
  # A class-data-sharing archive per Java build halves the start-up time after the first stop.
  local build
  build=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = \(.*\)$/\1/p' | tr -c 'A-Za-z0-9._+\n-' _)
  CDS_ARCHIVE=$DIST/cds-java-${build:-unknown}.jsa
}

# 1) The installation: a NEO4J_HOME-shaped directory whose lib/ is exactly the community tarball's jar set,
#    resolved through the pom-only artifact org.neo4j.assembly:neo4j-community-standalone.
install() {
  [ -f "$DIST/.complete" ] && return 0
  mkdir -p "$CACHE"
  if command -v flock >/dev/null 2>&1; then   # two first starts at once (two test runs) fetch once
    exec 9>"$CACHE/.install.lock"
    flock 9
    [ -f "$DIST/.complete" ] && return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "first start needs Maven (mvn) to fetch Neo4j $NEO4J_VERSION from Maven Central (Debian: apt-get install maven)"
  log "fetching Neo4j $NEO4J_VERSION jars from Maven Central into $DIST (first start only, about a minute)"
  local tmp
  tmp=$(mktemp -d "$CACHE/.install.XXXXXX")
  cat > "$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kg.local</groupId><artifactId>neo4j-community-runtime</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.neo4j.assembly</groupId><artifactId>neo4j-community-standalone</artifactId>
      <version>$NEO4J_VERSION</version><type>pom</type>
    </dependency>
  </dependencies>
</project>
EOF
  if ! mvn -B -q -f "$tmp/pom.xml" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
      -DoutputDirectory="$tmp/lib" -DincludeScope=runtime -DexcludeTypes=pom >"$tmp/mvn.log" 2>&1; then
    tail -n 20 "$tmp/mvn.log" >&2
    die "could not fetch Neo4j $NEO4J_VERSION from Maven Central (see above; is NEO4J_VERSION a published 5.26.x?)"
  fi
  mkdir -p "$tmp/bin" "$tmp/conf"
  # bin/neo4j-admin for people who want the tool itself: NEO4J_CONF decides which instance it acts on.
  cat > "$tmp/bin/neo4j-admin" <<'EOF'
#!/usr/bin/env bash
HOME_DIR=$(cd "$(dirname "$0")/.." && pwd)
export NEO4J_HOME=${NEO4J_HOME:-$HOME_DIR}
exec "${JAVA:-java}" -Xmx1g -cp "$HOME_DIR/lib/*" org.neo4j.cli.AdminTool "$@"
EOF
  chmod +x "$tmp/bin/neo4j-admin"
  : > "$tmp/conf/neo4j.conf"
  rm -f "$tmp/pom.xml" "$tmp/mvn.log"
  rm -rf "$DIST"
  mv "$tmp" "$DIST"
  touch "$DIST/.complete"
}

pid_alive() {  # is the pid file's process our server (same instance), not a recycled pid?
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "--home-dir=$INST " || return 1
  RUNNING_PID=$pid
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  if [ -n "${NEO4J_BOLT_PORT:-}" ]; then
    port_in_use "$NEO4J_BOLT_PORT" && die "port $NEO4J_BOLT_PORT (NEO4J_BOLT_PORT) is already in use on 127.0.0.1"
    PORT=$NEO4J_BOLT_PORT; return
  fi
  if [ -f "$PORTFILE" ] && ! port_in_use "$(cat "$PORTFILE")"; then PORT=$(cat "$PORTFILE"); return; fi
  local p i
  for i in $(seq 1 200); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 30000 ))
    if ! port_in_use "$p" && ! port_in_use "$((p + 1))"; then PORT=$p; return; fi
  done
  die "no free port found; set NEO4J_BOLT_PORT"
}

write_conf() {
  mkdir -p "$INST/conf" "$INST/data" "$INST/logs" "$INST/run" "$INST/import" "$INST/plugins"
  local auth_enabled=false
  [ "$AUTH" != "none" ] && auth_enabled=true
  cat > "$INST/conf/neo4j.conf" <<EOF
# written by docker/neo4j.sh on every start; edit the script, not this file
server.directories.data=$INST/data
server.directories.logs=$INST/logs
server.directories.run=$INST/run
server.directories.import=$INST/import
server.directories.plugins=$INST/plugins
server.directories.transaction.logs.root=$INST/data/transactions
server.default_listen_address=127.0.0.1
server.default_advertised_address=127.0.0.1
server.bolt.enabled=true
server.bolt.listen_address=127.0.0.1:$PORT
server.bolt.advertised_address=127.0.0.1:$PORT
server.http.enabled=false
server.https.enabled=false
dbms.security.auth_enabled=$auth_enabled
server.memory.heap.initial_size=$HEAP
server.memory.heap.max_size=$HEAP
server.memory.pagecache.size=$PAGECACHE
dbms.usage_report.enabled=false
db.tx_log.rotation.retention_policy=2 files
db.tx_log.preallocate=false
# the Bolt server otherwise waits 2 x 5 s on shutdown for connections that are already gone
internal.server.bolt.connection_shutdown_wait_time=1s
internal.dbms.bolt.netty_server_shutdown_timeout=1s
EOF
}

admin() {  # neo4j-admin on this instance's conf and data
  find_java; install
  [ -f "$INST/conf/neo4j.conf" ] || { PORT=${NEO4J_BOLT_PORT:-7687}; write_conf; }
  NEO4J_HOME=$INST NEO4J_CONF=$INST/conf "$JAVA_BIN" -Xmx1g -Dfile.encoding=UTF-8 \
    --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    -cp "$DIST/lib/*" org.neo4j.cli.AdminTool "$@"
}

set_initial_password() {
  [ "$AUTH" = "none" ] && return 0
  local user=${AUTH%%/*} pass=${AUTH#*/}
  [ "$user" = "neo4j" ] && [ "$pass" != "$AUTH" ] || die "NEO4J_AUTH must be 'none' or 'neo4j/<password>'"
  [ "${#pass}" -ge 8 ] || die "NEO4J_AUTH password must be at least 8 characters"
  [ -d "$INST/data/databases/system" ] && return 0   # set once, when the system database is created
  admin dbms set-initial-password "$pass" >"$INST/logs/set-initial-password.log" 2>&1 \
    || { cat "$INST/logs/set-initial-password.log" >&2; die "could not set the initial password"; }
}

start() {
  if pid_alive; then
    log "already running (pid $RUNNING_PID)"
    echo "bolt://127.0.0.1:$(cat "$PORTFILE")"
    return 0
  fi
  find_java; install
  local t0=$SECONDS
  pick_port
  write_conf
  set_initial_password
  [ -f "$INST/logs/neo4j.log" ] && mv -f "$INST/logs/neo4j.log" "$INST/logs/neo4j.log.prev"
  echo "$PORT" > "$PORTFILE"
  local cds
  rm -f "$INST/run/cds.jsa.new"            # left by a server that was not stopped by this script
  if [ -s "$CDS_ARCHIVE" ]; then cds=-XX:SharedArchiveFile=$CDS_ARCHIVE; else cds=-XX:ArchiveClassesAtExit=$INST/run/cds.jsa.new; fi
  # exec in a subshell without job control: setsid does not fork, so $! is the JVM's own pid, and the
  # JVM leaves our process group (Ctrl-C in the caller's terminal does not reach it).
  ( exec setsid "$JAVA_BIN" "$cds" -Xlog:cds=off -Xlog:cds+dynamic=off -Xms"$HEAP" -Xmx"$HEAP" -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow \
      -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -Djdk.nio.maxCachedBufferSize=1024 \
      -Dio.netty.tryReflectionSetAccessible=true -Dlog4j2.disable.jmx=true -Dfile.encoding=UTF-8 \
      --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
      --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
      --enable-native-access=ALL-UNNAMED \
      -cp "$DIST/lib/*" org.neo4j.server.CommunityEntryPoint \
      --home-dir="$INST" --config-dir="$INST/conf" \
      </dev/null >"$INST/logs/console.log" 2>&1 ) &
  echo $! > "$PIDFILE"
  pid_alive || { sleep 1; pid_alive; } || { cat "$INST/logs/console.log" >&2; die "the JVM did not start"; }
  log "starting pid $RUNNING_PID, Bolt on 127.0.0.1:$PORT, instance $INST"
  local deadline=$((SECONDS + START_TIMEOUT))
  while [ $SECONDS -lt $deadline ]; do
    if ! kill -0 "$RUNNING_PID" 2>/dev/null; then
      tail -n 30 "$INST/logs/console.log" >&2
      rm -f "$PIDFILE"
      die "Neo4j exited during start-up (log above; full logs in $INST/logs)"
    fi
    if grep -q 'INFO  Started\.' "$INST/logs/neo4j.log" 2>/dev/null && port_in_use "$PORT"; then
      log "ready in $((SECONDS - t0)) s"
      echo "bolt://127.0.0.1:$PORT"
      return 0
    fi
    sleep 0.5
  done
  stop >/dev/null 2>&1 || true
  die "Neo4j did not open Bolt within ${START_TIMEOUT}s (logs in $INST/logs)"
}

stop() {
  if ! pid_alive; then
    rm -f "$PIDFILE"
    log "not running"
    return 0
  fi
  local pid=$RUNNING_PID i
  find_java
  kill -TERM "$pid"
  for i in $(seq 1 120); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not stop in 60 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDFILE"
  if [ -s "$INST/run/cds.jsa.new" ] && [ ! -s "$CDS_ARCHIVE" ]; then  # the JVM wrote its class archive on exit
    mv -f "$INST/run/cds.jsa.new" "$CDS_ARCHIVE.$$" && mv -f "$CDS_ARCHIVE.$$" "$CDS_ARCHIVE" || true
  fi
  rm -f "$INST/run/cds.jsa.new"
  log "stopped pid $pid"
}

status() {
  if pid_alive; then
    echo "running $RUNNING_PID bolt://127.0.0.1:$(cat "$PORTFILE")"
  else
    echo "stopped"
    return 3
  fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status) status ;;
  uri) pid_alive || die "not running"; echo "bolt://127.0.0.1:$(cat "$PORTFILE")" ;;
  install) find_java; install; echo "$DIST" ;;
  admin) admin "$@" ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
