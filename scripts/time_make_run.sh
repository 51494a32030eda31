#!/usr/bin/env bash
# How long `make run` takes on a fresh clone until the site serves a table:
# from the command to the first 200 of /play/freecell, then it stops.
#
#   bash scripts/time_make_run.sh [REF] [VAR=value ...]
#   bash scripts/time_make_run.sh HEAD PIP_NO_CACHE_DIR=1     # pip's cache left out
#
# The clone goes to a temporary directory, removed at the end.
set -uo pipefail
ref=${1:-HEAD}
shift || true
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
dir=$(mktemp -d /tmp/jielong-clone-XXXXXX)
trap 'rm -rf "$dir"' EXIT
git clone -q "$repo" "$dir/jielong" && git -C "$dir/jielong" checkout -q "$ref"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cd "$dir/jielong"
start=$(date +%s.%N)
setsid env "$@" make run PORT="$port" > "$dir/make-run.log" 2>&1 &
pid=$!
until curl -sf -o /dev/null "http://127.0.0.1:$port/play/freecell"; do
    if ! kill -0 $pid 2>/dev/null; then
        echo "make run stopped before serving:" >&2
        tail -20 "$dir/make-run.log" >&2
        exit 1
    fi
    sleep 0.3
done
end=$(date +%s.%N)
kill -- -$pid 2>/dev/null
wait $pid 2>/dev/null
python3 -c "print(f'make run at $ref: serving /play/freecell after {$end - $start:.1f} s')"
