#!/usr/bin/env sh
# Install the Debian packages the tests and benchmarks need, where they are missing:
#   chromium (+ fonts-liberation)   browser tests and bench/html_layout.py
#   a Java 17 runtime, maven        docker/neo4j.sh (Neo4j 5.26 from Maven Central jars)
#   util-linux (setsid)             docker/neo4j.sh
# Usage: scripts/install-system-deps.sh   (needs root, or sudo, and the apt mirror; does nothing
# when everything is already there)
set -eu

missing=""
have() { command -v "$1" >/dev/null 2>&1; }
have chromium || have chromium-browser || missing="$missing chromium fonts-liberation"
have java || missing="$missing openjdk-17-jre-headless"
have mvn || missing="$missing maven"
have setsid || missing="$missing util-linux"

if [ -z "$missing" ]; then
    echo "system packages: chromium, java, maven and setsid are present"
    exit 0
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
    if have sudo; then
        SUDO="sudo"
    else
        echo "install-system-deps: not root and no sudo; install these Debian packages by hand:$missing" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086  # word splitting of the package list is intended
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "installed:$missing"
