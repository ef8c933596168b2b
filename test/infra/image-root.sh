#!/usr/bin/env bash
# The root filesystem of Errata's image, as the Dockerfile's final stage makes it, without
# Docker or the node:20-bookworm-slim base (no registry here): this host's node and the
# libraries it links, a `node` user 1000:1000, CA certificates, /tmp, and /app holding
# package.json, package-lock.json, bin/, dist/ and the production-only install. Usage:
# image-root.sh <dir> (replaced). The install is cached by the lock's hash outside the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG_TAG=image
. test/infra/lib.sh
root=$1
[ -f dist/errata.mjs ] || { log "no dist/: run npm run build first"; exit 1; }

lock_hash=$(sha256sum package.json package-lock.json | sha256sum | cut -c1-16)
modules="$CACHE/image-modules/$lock_hash"
if [ ! -d "$modules/node_modules" ]; then
  log "npm install --omit=dev for the image (cached as $modules)"
  rm -rf "$modules" && mkdir -p "$modules"
  cp package.json package-lock.json "$modules/"
  (cd "$modules" && npm install --omit=dev --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
fi

rm -rf "$root" && mkdir -p "$root"/{app,etc,tmp,usr/bin}
chmod 1777 "$root/tmp"
node_bin=$(readlink -f "$(command -v node)")
cp "$node_bin" "$root/usr/bin/node"
# The shared libraries node links (librt too: @node-rs/crc32 loads it), at the paths it names.
for lib in $(ldd "$node_bin" | grep -o '/[^ ]*') /lib/x86_64-linux-gnu/librt.so.1; do
  mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
done
printf 'root:x:0:0:root:/root:/bin/false\nnode:x:1000:1000::/home/node:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$root/etc/group"
mkdir -p "$root/etc/ssl"
cp -rL /etc/ssl/certs "$root/etc/ssl/certs"
cp package.json package-lock.json "$root/app/"
cp -r bin dist "$root/app/"
cp -r "$modules/node_modules" "$root/app/node_modules"
