#!/usr/bin/env bash
# Builds Prometheus and promtool (for the alert-rule tests and the distributed suite's real
# scrape) from the Go module proxy into <cache>/bin, once: a wrapper module outside the
# repository and ONE `go build` of both commands, so their shared dependencies compile once.
# `remove_all_sd` leaves out the cloud service discoveries (only static, file and http stay),
# which the tests never use and which would double the build. Idempotent: prints the bin
# directory and returns at once when both binaries are there.
# <cache> is ${XDG_CACHE_HOME:-~/.cache}/errata-ci: keep it in step with
# test/support/prometheus-binaries.ts.
set -euo pipefail
PROMETHEUS_MODULE_VERSION=v0.316.0 # Prometheus 3.16.0 (the module's tags are v0.3xx.y)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/errata-ci"
BIN="$CACHE/bin/prometheus-$PROMETHEUS_MODULE_VERSION"
log() { printf '[prometheus] %s\n' "$*" >&2; }

if [ -x "$BIN/prometheus" ] && [ -x "$BIN/promtool" ]; then echo "$BIN"; exit 0; fi
command -v go >/dev/null || { log "Go is missing (Prometheus is built with it): install Go 1.26.7 or newer from https://go.dev/dl"; exit 1; }
log "building prometheus and promtool $PROMETHEUS_MODULE_VERSION from the Go module proxy (several minutes the first time)"
src="$CACHE/src/prometheus" && rm -rf "$src" && mkdir -p "$src"
cd "$src"
go mod init local/prometheus >/dev/null 2>&1
# A blank import pins both commands' packages in the module so `go mod tidy` keeps their deps.
cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
GO
go get "github.com/prometheus/prometheus@$PROMETHEUS_MODULE_VERSION" >/dev/null 2>&1
go mod tidy >/dev/null 2>&1
mkdir -p "$BIN.partial"
start=$(date +%s)
CGO_ENABLED=0 GOMAXPROCS="${GOMAXPROCS:-2}" go build -tags remove_all_sd -o "$BIN.partial/" \
  github.com/prometheus/prometheus/cmd/prometheus github.com/prometheus/prometheus/cmd/promtool
rm -rf "$BIN" && mv "$BIN.partial" "$BIN"
log "built in $(($(date +%s) - start)) s: $BIN"
echo "$BIN"
