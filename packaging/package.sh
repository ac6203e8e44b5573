#!/usr/bin/env bash
# Builds the release archive for one platform and fills in its sha256 in the krew
# manifest.
#
#   packaging/package.sh [--target TRIPLE] [--binaries DIR] [--out-dir DIR]
#
#   --target TRIPLE  the Rust target to build for (default: the host's)
#   --binaries DIR   take kubectl-mesh_lifecycle and kubectl_complete-mesh_lifecycle
#                    from DIR instead of running `cargo build --release --locked`
#   --out-dir DIR    where to write (default: dist)
#
# Writes, in the output directory:
#   kubectl-mesh_lifecycle-vVERSION-OS-ARCH.tar.gz   the two binaries, LICENSE,
#       README.md, completions/ and man/ at the archive's root
#   kubectl-mesh_lifecycle-vVERSION-OS-ARCH.tar.gz.sha256
#   mesh-lifecycle.yaml   krew-manifest.yaml with this platform's sha256 filled in
#       (an existing copy there is updated, so runs for several platforms add up)
#
# Install from the result without a release:
#   kubectl krew install --manifest=dist/mesh-lifecycle.yaml \
#       --archive=dist/kubectl-mesh_lifecycle-vVERSION-OS-ARCH.tar.gz
set -euo pipefail

cd "$(dirname "$0")/.."

die() {
  echo "package.sh: $*" >&2
  exit 2
}

target=""
binaries=""
out_dir="dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=${2:?--target needs a value}; shift 2 ;;
    --target=*) target=${1#*=}; shift ;;
    --binaries) binaries=${2:?--binaries needs a value}; shift 2 ;;
    --binaries=*) binaries=${1#*=}; shift ;;
    --out-dir) out_dir=${2:?--out-dir needs a value}; shift 2 ;;
    --out-dir=*) out_dir=${1#*=}; shift ;;
    -h | --help) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || die "no version in Cargo.toml"

triple=${target:-$(rustc -vV | sed -n 's/^host: //p')}
case "$triple" in
  x86_64-unknown-linux-*) os=linux arch=amd64 ;;
  aarch64-unknown-linux-*) os=linux arch=arm64 ;;
  x86_64-apple-darwin) os=darwin arch=amd64 ;;
  aarch64-apple-darwin) os=darwin arch=arm64 ;;
  x86_64-pc-windows-*) os=windows arch=amd64 ;;
  *) die "no krew platform for target $triple" ;;
esac
exe=""
[ "$os" = windows ] && exe=".exe"

if [ -z "$binaries" ]; then
  if [ -n "$target" ]; then
    cargo build --release --locked --target "$target"
    binaries="${CARGO_TARGET_DIR:-target}/$target/release"
  else
    cargo build --release --locked
    binaries="${CARGO_TARGET_DIR:-target}/release"
  fi
fi

name="kubectl-mesh_lifecycle-v$version-$os-$arch"
archive="$name.tar.gz"
mkdir -p "$out_dir"
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT

for binary in kubectl-mesh_lifecycle kubectl_complete-mesh_lifecycle; do
  [ -f "$binaries/$binary$exe" ] || die "$binaries/$binary$exe not found"
  cp "$binaries/$binary$exe" "$staging/"
  chmod 0755 "$staging/$binary$exe"
done
cp LICENSE README.md "$staging/"
cp -R completions "$staging/completions"
cp -R docs/man "$staging/man"

# Reproducible where GNU tar allows: sorted names, no owners, the commit's time.
tar_flags=()
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  mtime=$(git log -1 --format=%ct 2>/dev/null || echo 0)
  tar_flags=(--sort=name --owner=0 --group=0 --numeric-owner "--mtime=@$mtime")
fi
(cd "$staging" && tar ${tar_flags[@]+"${tar_flags[@]}"} -cf - -- *) | gzip -9n >"$out_dir/$archive"

if command -v sha256sum >/dev/null 2>&1; then
  sha=$(sha256sum "$out_dir/$archive" | cut -d' ' -f1)
else
  sha=$(shasum -a 256 "$out_dir/$archive" | cut -d' ' -f1)
fi
echo "$sha  $archive" >"$out_dir/$archive.sha256"

# The manifest: this platform's sha256 in place of the old one. The platform's uri
# must name this archive, or the manifest and the packaging disagree.
manifest="$out_dir/mesh-lifecycle.yaml"
[ -f "$manifest" ] || cp krew-manifest.yaml "$manifest"
awk -v os="$os" -v arch="$arch" -v sha="$sha" -v archive="$archive" -v version="v$version" '
  /^[[:space:]]*version:/ && $2 != version {
    print "package.sh: the manifest is for " $2 ", Cargo.toml for " version > "/dev/stderr"
    failed = 1
  }
  /^[[:space:]]*- selector:/ { this_os = ""; this_arch = "" }
  /^[[:space:]]*os:/ { this_os = $2 }
  /^[[:space:]]*arch:/ { this_arch = $2 }
  this_os == os && this_arch == arch && /^[[:space:]]*uri:/ {
    n = split($2, parts, "/")
    if (parts[n] != archive) {
      print "package.sh: the manifest downloads " parts[n] " for " os "/" arch ", not " archive > "/dev/stderr"
      failed = 1
    }
  }
  this_os == os && this_arch == arch && /^[[:space:]]*sha256:/ {
    sub(/sha256:.*/, "sha256: \"" sha "\"")
    replaced++
  }
  { print }
  END {
    if (replaced != 1) {
      print "package.sh: no single " os "/" arch " platform in the manifest" > "/dev/stderr"
      failed = 1
    }
    exit failed
  }
' "$manifest" >"$manifest.new" || { rm -f "$manifest.new"; exit 1; }
mv "$manifest.new" "$manifest"

echo "$out_dir/$archive"
echo "sha256 $sha"
echo "$manifest: $os/$arch filled in"
