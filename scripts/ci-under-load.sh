#!/usr/bin/env bash
# `.ci/run` while another CPU-bound process runs beside it (issue 36 item 5): one Node process
# spinning at normal priority, which keeps one of the machine's cores busy for the whole run, the
# way another engineer's build or test run would. Run it from a clean clone, as CI runs `.ci/run`:
#   d=$(mktemp -d) && git clone -q <repo> "$d" && cd "$d" && bash scripts/ci-under-load.sh
set -uo pipefail
cd "$(dirname "$0")/.."
node -e 'for (;;) {}' &
load=$!
trap 'kill "$load" 2>/dev/null' EXIT
bash .ci/run
