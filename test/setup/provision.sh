#!/usr/bin/env bash
# Installs, outside the repository, the real SDK clients and browser the test suites drive, so
# that `npm test` passes on a fresh clone with nothing done by hand. `npm test` runs it first
# (with no argument: everything); `npm run test:distributed` asks only for python. Idempotent:
# when everything is already there it only checks and returns.
#   chromium  Debian's chromium (never a downloaded browser): apt-get when running as root,
#             otherwise it stops and names the one command to run.
#   python    Python's sentry-sdk, pinned by test/clients/python/requirements.txt, in a
#             virtualenv at <cache>/venv; the tests find it there (test/support/test-python.ts)
#             unless ERRATA_TEST_PYTHON names another interpreter.
#   go        sentry-go's modules, into Go's own module cache (go mod download).
#   prometheus  prometheus and promtool, built from the Go module proxy into <cache>/bin by
#             test/setup/build-prometheus.sh (the rules' tests and the distributed suite's scrape).
# <cache> is ${XDG_CACHE_HOME:-~/.cache}/errata-ci: keep it in step with test-python.ts.
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/errata-ci"
VENV="$CACHE/venv"
REQUIREMENTS=test/clients/python/requirements.txt
log() { printf '[provision] %s\n' "$*" >&2; }
fail() { printf '[provision] %s\n' "$*" >&2; exit 1; }
wanted() { [ "${#components[@]}" -eq 0 ] || [[ " ${components[*]} " == *" $1 "* ]]; }
components=("$@")
for c in "${components[@]}"; do
  case "$c" in chromium | python | go | prometheus) ;; *) fail "unknown component '$c' (expected chromium, python, go or prometheus)" ;; esac
done

# Debian packages go through apt only as root: installing system packages is not something a
# test command should do behind a user's back, so anyone else is told the command instead.
apt_install() {
  if [ "$(id -u)" != 0 ]; then fail "$1 is missing; install it with: sudo apt-get install $2"; fi
  log "installing $2 (apt-get)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null ||
    fail "apt-get install $2 failed"
}

if wanted chromium; then
  chromium="${ERRATA_TEST_CHROMIUM:-/usr/bin/chromium}"
  if [ ! -x "$chromium" ]; then
    [ -z "${ERRATA_TEST_CHROMIUM:-}" ] || fail "ERRATA_TEST_CHROMIUM=$chromium is not an executable"
    apt_install "Debian's chromium (for the browser tests)" chromium
  fi
fi

if wanted python; then
  # The venv is current when it runs and was filled from this very requirements file.
  stamp="$VENV/.errata-requirements"
  if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c '' 2>/dev/null && cmp -s "$REQUIREMENTS" "$stamp"; then
    :
  else
    command -v python3 >/dev/null || apt_install "Python 3" python3-venv
    log "creating the Python virtualenv $VENV"
    mkdir -p "$CACHE"
    rm -rf "$VENV"
    if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
      # Debian's python3 ships without ensurepip; python3-venv brings it.
      rm -rf "$VENV"
      apt_install "Python's venv module" python3-venv
      python3 -m venv "$VENV" || fail "python3 -m venv $VENV failed"
    fi
    log "installing $(tr '\n' ' ' <"$REQUIREMENTS")into it (pip)"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS" || fail "pip install -r $REQUIREMENTS failed"
    cp "$REQUIREMENTS" "$stamp"
  fi
fi

if wanted go; then
  command -v go >/dev/null || fail "Go is missing (the sentry-go test client is built with it): install Go 1.25 or newer from https://go.dev/dl"
  # Already-downloaded modules make this a no-op that takes milliseconds.
  (cd test/clients/go && go mod download) || fail "go mod download (in test/clients/go) failed"
fi

if wanted prometheus; then
  # Returns at once when both binaries are there.
  bash test/setup/build-prometheus.sh >/dev/null || fail "building prometheus and promtool (test/setup/build-prometheus.sh) failed"
fi
