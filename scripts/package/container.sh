#!/usr/bin/env bash
# Builds solscope's container image (deploy/container/Dockerfile) from the unpacked release bundle that
# scripts/package.sh left in dist/, with podman, buildah or docker, whichever is installed (in that order).
# The CUPTI libraries of the CUDA toolkit found at $CUDA_HOME or /usr/local/cuda go into the image when present
# (PM sampling needs them; the NVIDIA Container Toolkit mounts only the driver's libraries).
# SOLSCOPE_CONTAINER_TOOL picks the tool (podman, buildah or docker); SOLSCOPE_BUILDAH_ISOLATION (e.g. chroot)
# is buildah's --isolation, for hosts where no OCI runtime can start (tests/release/container_test.sh).
#   scripts/package/container.sh [TAG [BUNDLE_TREE]]   (default solscope:VERSION and the newest dist/solscope-*/)
set -euo pipefail
cd "$(dirname "$0")/../.."
tree="${2:-$(ls -d dist/solscope-*-linux-x86_64 2>/dev/null | sort -V | tail -1)}"
[ -n "$tree" ] && [ -d "$tree" ] || { echo "container: no release bundle in dist/: run scripts/package.sh first" >&2; exit 1; }
tree="${tree%/}"
version="${tree##*/solscope-}"
version="${version%-linux-x86_64}"
tag="${1:-solscope:$version}"
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
cp -a "$tree" "$context/bundle"
mkdir -p "$context/cupti"
cuda="${CUDA_HOME:-/usr/local/cuda}"
for lib in libcupti.so.13 libnvperf_host.so libnvperf_target.so; do
  [ -e "$cuda/lib64/$lib" ] && cp -L "$cuda/lib64/$lib" "$context/cupti/"
done
for tool in ${SOLSCOPE_CONTAINER_TOOL:-podman buildah docker}; do
  command -v "$tool" >/dev/null || continue
  case "$tool" in
    # --format docker: the OCI image format has no HEALTHCHECK
    buildah) buildah bud --format docker ${SOLSCOPE_BUILDAH_ISOLATION:+--isolation "$SOLSCOPE_BUILDAH_ISOLATION"} \
               -f deploy/container/Dockerfile -t "$tag" "$context" ;;
    podman) podman build --format docker -f deploy/container/Dockerfile -t "$tag" "$context" ;;
    *) "$tool" build -f deploy/container/Dockerfile -t "$tag" "$context" ;;
  esac
  echo "container: built $tag with $tool"
  exit 0
done
echo "container: no podman, buildah or docker installed" >&2
exit 1
