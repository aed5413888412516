#!/usr/bin/env sh
# Install Debian's chromium for the browser tests (tests/integration/test_html_browser.py)
# and bench/html_layout.py, unless a Chromium is already on PATH.
# Usage: scripts/install-chromium.sh      (needs root, or sudo, and access to the apt mirror)
set -eu

for exe in chromium chromium-browser; do
    if command -v "$exe" >/dev/null 2>&1; then
        echo "chromium: $(command -v "$exe") ($("$exe" --version 2>/dev/null || echo 'version unknown'))"
        exit 0
    fi
done

SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install-chromium: not root and no sudo; install Debian's 'chromium' package by hand" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# fonts-liberation gives the page readable Latin text in screenshots; chromium itself pulls the rest.
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
echo "chromium: $(command -v chromium) ($(chromium --version 2>/dev/null || echo 'version unknown'))"
