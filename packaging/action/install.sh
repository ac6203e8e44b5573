#!/usr/bin/env bash
# The action's install step (action.yml): downloads the release archive for the
# runner's OS and architecture, checks it against its .sha256, and puts
# kubectl-mesh_lifecycle on the job's PATH.
#
# Reads RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH and GITHUB_OUTPUT as
# GitHub sets them; INPUT_VERSION (the release, or empty), ACTION_REF and
# ACTION_REPOSITORY (where the action was taken from), GITHUB_TOKEN (to find the
# latest release), and MESH_LIFECYCLE_RELEASES, the base of the download URLs
# (default https://github.com/OWNER/REPO/releases/download; tests point it at a
# directory with file://).
set -euo pipefail

die() {
  echo "::error title=kubectl mesh-lifecycle::$*"
  exit 1
}

repository=${ACTION_REPOSITORY:-mesh-lifecycle/kubectl-mesh-lifecycle}
[ -n "$repository" ] || repository=mesh-lifecycle/kubectl-mesh-lifecycle
releases=${MESH_LIFECYCLE_RELEASES:-https://github.com/$repository/releases/download}

case "${RUNNER_OS:-}" in
  Linux) os=linux ;;
  macOS) os=darwin ;;
  Windows) os=windows ;;
  *) die "no release for the runner's OS ${RUNNER_OS:-unknown}" ;;
esac
case "${RUNNER_ARCH:-}" in
  X64) arch=amd64 ;;
  ARM64) arch=arm64 ;;
  *) die "no release for the runner's architecture ${RUNNER_ARCH:-unknown}" ;;
esac
[ "$os/$arch" != windows/arm64 ] || die "no release for Windows on ARM64"

version=${INPUT_VERSION:-}
if [ -z "$version" ]; then
  case "${ACTION_REF:-}" in
    v[0-9]*.*) version=$ACTION_REF ;;
  esac
fi
if [ -z "$version" ]; then
  auth=()
  [ -z "${GITHUB_TOKEN:-}" ] || auth=(-H "Authorization: Bearer $GITHUB_TOKEN")
  version=$(curl -fsSL ${auth[@]+"${auth[@]}"} "https://api.github.com/repos/$repository/releases/latest" |
    sed -n 's/^ *"tag_name": *"\([^"]*\)".*/\1/p' | head -n 1) ||
    die "could not find the latest release of $repository; set the version input"
  [ -n "$version" ] || die "could not find the latest release of $repository; set the version input"
fi
case "$version" in
  v*) ;;
  *) version=v$version ;;
esac

archive=kubectl-mesh_lifecycle-$version-$os-$arch.tar.gz
dir=${RUNNER_TEMP:?RUNNER_TEMP is not set}/mesh-lifecycle-$version
mkdir -p "$dir/bin"
cd "$dir"
curl -fsSL --retry 3 -o "$archive" "$releases/$version/$archive" ||
  die "could not download $releases/$version/$archive"
curl -fsSL --retry 3 -o "$archive.sha256" "$releases/$version/$archive.sha256" ||
  die "could not download the checksum $releases/$version/$archive.sha256"

# The .sha256 file is `HASH  NAME`, as sha256sum writes and checks it.
expected=$(cut -d' ' -f1 <"$archive.sha256")
if command -v sha256sum >/dev/null 2>&1; then
  actual=$(sha256sum "$archive" | cut -d' ' -f1)
else
  actual=$(shasum -a 256 "$archive" | cut -d' ' -f1)
fi
[ -n "$expected" ] && [ "$expected" = "$actual" ] ||
  die "$archive does not match its checksum (expected ${expected:-nothing}, got $actual)"

exe=""
[ "$os" = windows ] && exe=.exe
tar -xzf "$archive" -C bin "kubectl-mesh_lifecycle$exe"
chmod +x "bin/kubectl-mesh_lifecycle$exe"
echo "$dir/bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
echo "version=$version" >>"${GITHUB_OUTPUT:-/dev/null}"
"bin/kubectl-mesh_lifecycle$exe" --version
