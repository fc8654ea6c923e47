#!/usr/bin/env bash
# package.container: the image recipe (deploy/container/Dockerfile) built and run here, where no registry is
# reached: a Debian 12 minbase root imported under the tag the Dockerfile names (debian:12-slim), the image built,
# then `solscope --version` in it (as its non-root user) and `serve --replay` of the demo trace answering /healthz
# and /metrics from the host. The engine: podman; where podman cannot start a container (a sandbox that refuses
# setrlimit or has hybrid cgroups), buildah with chroot isolation, which builds and runs the same image without an
# OCI runtime. Exit 77 (skipped) only when neither can, with why.
#   tests/release/container_test.sh DIST_DIR CACHE_DIR
set -uo pipefail
dist="$(realpath "$1")"
skip() { echo "SKIP: $*"; exit 77; }
command -v podman >/dev/null || skip "podman is not installed (scripts/setup.sh installs it)"
root_cache="$(tests/release/rootfs.sh "$2")" || exit $?
base="$(sed -n 's/^FROM //p' deploy/container/Dockerfile | head -1)"
tag="localhost/solscope-test:ci"
if ! podman image exists "$base"; then
  tar -C "$root_cache" --exclude=./.complete -c . | podman import - "$base" >/dev/null ||
    skip "podman cannot import an image here"
fi
if why="$(podman run --rm --network host "$base" true 2>&1)"; then
  engine=podman
elif command -v buildah >/dev/null && ctr="$(buildah from "$base" 2>/dev/null)" &&
     buildah run --isolation chroot "$ctr" -- true 2>/dev/null; then
  buildah rm "$ctr" >/dev/null
  echo "podman cannot start a container here ($why): building and running with buildah --isolation chroot"
  engine=buildah
else
  skip "neither podman nor buildah (chroot isolation) can run a container here: $why"
fi
set -e
tree="$(ls -d "$dist"/solscope-*-linux-x86_64 | tail -1)"
if [ "$engine" = podman ]; then
  SOLSCOPE_CONTAINER_TOOL=podman scripts/package/container.sh "$tag" "$tree"
else
  SOLSCOPE_CONTAINER_TOOL=buildah SOLSCOPE_BUILDAH_ISOLATION=chroot scripts/package/container.sh "$tag" "$tree"
fi
container=""
cleanup() {
  if [ "$engine" = podman ]; then podman rm -f solscope-test >/dev/null 2>&1; else
    pkill -f "solscope-bin serve --listen 127.0.0.1:$port" 2>/dev/null; [ -n "$container" ] && buildah rm "$container" >/dev/null 2>&1; fi
  podman rmi -f "$tag" >/dev/null 2>&1
}
trap cleanup EXIT
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
in_image() {  # in_image ARGS...: solscope ARGS in the image (its ENTRYPOINT), in the foreground
  if [ "$engine" = podman ]; then podman run --rm --network host "$tag" "$@"; else
    buildah run --isolation chroot "$container" -- solscope "$@"; fi
}
[ "$engine" = buildah ] && container="$(buildah from "$tag")"
echo "== the image: $(podman image inspect --format '{{.Config.User}} {{.Config.Entrypoint}} {{.Config.Cmd}}' "$tag")"
echo "== solscope --version in the image"
in_image --version
serve=(serve --listen "127.0.0.1:$port" --replay /opt/solscope/share/solscope/demo-trace.sqlite --loop)
if [ "$engine" = podman ]; then
  podman run -d --name solscope-test --network host "$tag" "${serve[@]}" >/dev/null
else
  buildah run --isolation chroot "$container" -- id -un
  buildah run --isolation chroot "$container" -- solscope "${serve[@]}" >"$dist/container-serve.log" 2>&1 &
fi
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
echo "== /healthz"; curl -fsS "http://127.0.0.1:$port/healthz"; echo
metrics=""
for _ in $(seq 50); do  # until the first replayed sample is in the window the exporter shows
  metrics="$(curl -fsS "http://127.0.0.1:$port/metrics")"
  grep -q '^solscope_compute_sol' <<<"$metrics" && break
  sleep 0.2
done
echo "== /metrics: $(grep -c '^solscope_' <<<"$metrics") solscope series lines"
grep -q '^solscope_compute_sol' <<<"$metrics" || { echo "FAIL: /metrics holds no SOL series"; exit 1; }
grep '^solscope_compute_sol' <<<"$metrics" | head -3
echo "container ($engine): PASS"
