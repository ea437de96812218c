#!/usr/bin/env bash
# The HTML run reports in a real browser: playwright-core (pinned in package-lock.json)
# drives Debian's headless Chromium through what a student does with a report of the
# divergence demos, a timed run and a million-issue trace (tests/browser/report.test.mjs).
#
# Usage: tests/browser/run.sh [SIMT]   (default target/release/simt). Installs chromium with
# apt-get when it is missing and this is root, and playwright-core with npm; where either
# cannot be had, prints why and skips.
set -euo pipefail

SIMT=$(realpath "${1:-target/release/simt}")
HERE=$(cd "$(dirname "$0")" && pwd)

skip() { echo "browser test skipped: $*"; exit 0; }

command -v node >/dev/null && command -v npm >/dev/null || skip "node and npm are not installed"
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || skip "chromium is not installed and this is not root with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 || skip "apt-get could not install chromium"
    CHROMIUM=$(command -v chromium)
fi
(cd "$HERE" && npm ci --no-audit --no-fund --silent) || skip "npm could not install playwright-core"

REPORT_DIR=$(mktemp -d)
trap 'rm -rf "$REPORT_DIR"' EXIT
cd "$HERE"
SIMT="$SIMT" CHROMIUM="$CHROMIUM" REPORT_DIR="$REPORT_DIR" node --test --test-reporter=spec report.test.mjs
