#!/bin/sh
# npm run release:container: the OCI image of Emergency Access from the release's Debian package
# (run npm run release first). As root, on Debian, with mmdebstrap and buildah:
#   1. mmdebstrap makes a minimal Debian (SUITE, trixie: its nodejs is 20.19) from Debian's
#      packages, with dist/release/dea_<version>_<arch>.deb installed by apt, as on a host; the
#      secret the package's postinst made is removed (each deployment brings or generates its own);
#   2. buildah builds packaging/container/Containerfile (no RUN: no container engine needed) and
#      writes the image as an OCI archive, dist/release/dea-<version>-oci.tar.
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
  --customize-hook='rm -f "$1/etc/dea/secret" && sed -i "s|^DEA_SECRET_FILE=|#DEA_SECRET_FILE=|" "$1/etc/dea/dea.env"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*' \
  "$suite" "$context/rootfs.tar" "$mirror"

image="localhost/dea:$version"
buildah ${BUILDAH_OPTS:-} bud --timestamp "$SOURCE_DATE_EPOCH" --format oci -t "$image" -f "$context/Containerfile" "$context"
buildah ${BUILDAH_OPTS:-} push "$image" "oci-archive:$out/dea-${version}-oci.tar:$image"
echo "$image, and $out/dea-${version}-oci.tar"
