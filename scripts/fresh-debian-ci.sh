#!/usr/bin/env bash
# Runs .ci/run as on a fresh machine: a Debian 12 (bookworm) root made by debootstrap
# (--variant=minbase: no git, kubectl, helm, etcd, openssl, compiler or Python) with only this
# machine's Node 20 copied in, an empty HOME and npm cache, and a clean clone of COMMIT
# (default HEAD). Needs root, debootstrap (apt-get install debootstrap) and Debian's mirror.
#
#   sudo bash scripts/fresh-debian-ci.sh [COMMIT] [ROOT_DIR]
#
# ROOT_DIR (default .fresh-debian/ in this clone, ignored by git) is made afresh each run.
# The chroot shares this machine's network; when the npm registry is reached through a
# TLS-inspecting proxy, set FRESH_CA_BUNDLE to its CA bundle: Node alone is given it.
set -euo pipefail
cd "$(dirname "$0")/.."
COMMIT=$(git rev-parse "${1:-HEAD}")
R=$(realpath -m "${2:-.fresh-debian}")
[ "$(id -u)" = 0 ] || { echo "run as root (debootstrap and chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "install debootstrap first (apt-get install debootstrap)" >&2; exit 1; }

release() { for m in tmp dev/pts dev sys proc; do mountpoint -q "$R/$m" && umount -l "$R/$m"; done; return 0; }
trap release EXIT
release
rm -rf "$R"
echo "debootstrap bookworm (minbase) into $R"
debootstrap --variant=minbase bookworm "$R" http://deb.debian.org/debian >"$R.debootstrap.log" 2>&1 || { tail "$R.debootstrap.log"; exit 1; }
cat >"$R/etc/apt/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
# What a Debian installer writes and debootstrap does not.
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$R/etc/hosts"
cp /etc/resolv.conf "$R/etc/resolv.conf"

# Node 20 as this machine has it: the binary, its headers (for node-gyp) and npm.
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
mkdir -p "$R/usr/bin" "$R/usr/include" "$R/usr/lib/node_modules"
cp "$node_prefix/bin/node" "$R/usr/bin/node"
[ -d "$node_prefix/include/node" ] && cp -a "$node_prefix/include/node" "$R/usr/include/"
cp -a "$node_prefix/lib/node_modules/npm" "$R/usr/lib/node_modules/"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$R/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$R/usr/bin/npx"
extra_ca=()
if [ -n "${FRESH_CA_BUNDLE:-}" ]; then
  mkdir -p "$R/etc/ssl/certs" && cp "$FRESH_CA_BUNDLE" "$R/etc/ssl/certs/network-ca.crt"
  extra_ca=(NODE_EXTRA_CA_CERTS=/etc/ssl/certs/network-ca.crt)
fi

for m in proc sys dev dev/pts; do mount --bind "/$m" "$R/$m"; done
mount -t tmpfs -o size=6g tmpfs "$R/tmp"
git clone -q "$PWD" "$R/root/client"
git -C "$R/root/client" checkout -q "$COMMIT"
echo "bash .ci/run in the fresh root, commit $COMMIT"
chroot "$R" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "${extra_ca[@]}" \
  /bin/bash -c 'cd /root/client && time bash .ci/run'
