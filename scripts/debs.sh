#!/usr/bin/env bash
# Install the Debian packages named as arguments when some are missing.
# Needs root on Debian (as on the project's machines); elsewhere it says what
# to install and fails.
#
# With --optional first, the packages are a speed-up the program runs
# without: where they cannot be installed (not root, not Debian, no network)
# this says nothing and succeeds, and the program says itself what it misses
# (`jielong serve` at start-up, `jielong doctor` in full).
set -euo pipefail
optional=0
if [ "${1:-}" = "--optional" ]; then
    optional=1
    shift
fi
if ! command -v dpkg-query >/dev/null 2>&1; then
    [ $optional -eq 1 ] && exit 0
    echo "not a Debian system: install the equivalents of these packages: $*" >&2
    exit 1
fi
missing=()
for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    [ $optional -eq 1 ] && exit 0
    echo "missing Debian packages: ${missing[*]} (install them as root)" >&2
    exit 1
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; then
    exit 0
fi
[ $optional -eq 1 ] && { echo "could not install ${missing[*]}; going on without" >&2; exit 0; }
exit 1
