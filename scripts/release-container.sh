#!/bin/sh
# npm run release:container: the OCI image of Emergency Access from the release's Debian package
# (run npm run release first). As root, on Debian, with mmdebstrap and buildah:
#   1. mmdebstrap makes a minimal Debian (SUITE, trixie: its nodejs is 20.19) from Debian's
#      packages, with dist/release/dea_<version>_<arch>.deb installed by apt, as on a host; the
#      secret the package's postinst made is removed (each deployment brings or generates its own);
#   2. buildah builds packaging/container/Containerfile (no RUN: no container engine needed), with
#      the release's version as its label, and writes the image in Docker's format (which keeps the
#      health check) as dist/release/dea-<version>-image.tar, for docker load and podman load.
# SOURCE_DATE_EPOCH (the commit's time) is given to both; with a snapshot mirror (MIRROR) the
# root file system is the same on every build.
set -eu
cd "$(dirname "$0")/.."
version=${VERSION:-$(node -p 'require("./package.json").version')}
arch=$(dpkg --print-architecture)
out=${OUT:-dist/release}
suite=${SUITE:-trixie}
mirror=${MIRROR:-http://deb.debian.org/debian}
deb="$out/dea_${version}_${arch}.deb"
[ -f "$deb" ] || { echo "$deb is missing: run npm run release first" >&2; exit 1; }
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export SOURCE_DATE_EPOCH
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp packaging/container/Containerfile "$context/"

mmdebstrap --variant=minbase --include=ca-certificates \
  --customize-hook="copy-in $deb /tmp" \
  --customize-hook='chroot "$1" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/dea_*.deb && rm /tmp/dea_*.deb"' \
  --customize-hook='rm -f "$1/etc/dea/secret"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*' \
  "$suite" "$context/rootfs.tar" "$mirror"

image="localhost/dea:$version"
# Docker's image format: the OCI format has no health check.
buildah ${BUILDAH_OPTS:-} bud --timestamp "$SOURCE_DATE_EPOCH" --format docker --build-arg "VERSION=$version" \
  -t "$image" -f "$context/Containerfile" "$context"
buildah ${BUILDAH_OPTS:-} push "$image" "docker-archive:$out/dea-${version}-image.tar:$image"
echo "$image, and $out/dea-${version}-image.tar"
