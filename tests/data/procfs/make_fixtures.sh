#!/usr/bin/env bash
# Writes the SYNTHETIC fake procfs tree `host/` and the fake container filesystems `rootfs/` used by
# tests/workload. Every process, id, address and inode below is invented; see README.md. Re-run after editing:
#   tests/data/procfs/make_fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
rm -rf host rootfs
mkdir -p host/net host/self/ns rootfs

DOCKER_ID=9f2b5c1e8a7d4f3b6e0c2a1d9b8e7f6a5c4d3b2a1f0e9d8c7b6a5f4e3d2c1b0a
K8S_V1_ID=4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b
K8S_V2_ID=aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00ee11ff22aa33bb44cc55dd66
PODMAN_ID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
OLD_DOCKER_ID=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210

# proc <pid> <ppid> <uid> <name> <cgroup text> <arg>...   (cmdline: arguments joined by NUL, trailing NUL)
proc() {
  local pid=$1 ppid=$2 uid=$3 name=$4 cgroup=$5
  shift 5
  mkdir -p "host/$pid/fd" "host/$pid/ns"
  printf 'Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%s\nPid:\t%s\nPPid:\t%s\nTracerPid:\t0\nUid:\t%s\t%s\t%s\t%s\nGid:\t%s\t%s\t%s\t%s\n' \
    "$name" "$pid" "$pid" "$ppid" "$uid" "$uid" "$uid" "$uid" "$uid" "$uid" "$uid" "$uid" >"host/$pid/status"
  printf '%s' "$cgroup" >"host/$pid/cgroup"
  : >"host/$pid/cmdline"
  for arg in "$@"; do printf '%s\0' "$arg" >>"host/$pid/cmdline"; done
  ln -s 'net:[4026531840]' "host/$pid/ns/net"
  ln -s /dev/null "host/$pid/fd/0"
}
environ() {  # environ <pid> KEY=VALUE...
  local pid=$1
  shift
  : >"host/$pid/environ"
  for kv in "$@"; do printf '%s\0' "$kv" >>"host/$pid/environ"; done
}
socket() { ln -s "socket:[$3]" "host/$1/fd/$2"; }  # socket <pid> <fd> <inode>

ln -s 'net:[4026531840]' host/self/ns/net
proc 1 0 0 systemd $'0::/init.scope\n' /sbin/init
proc 900 1 1000 bash $'0::/user.slice/user-1000.slice/session-3.scope\n' -bash

# vLLM, tensor parallel 2, started by alice from a shell: API server -> engine core -> two workers (GPUs 0, 1).
USER_CG=$'0::/user.slice/user-1000.slice/session-3.scope\n'
proc 1000 900 1000 vllm "$USER_CG" /usr/bin/python3 /usr/local/bin/vllm serve meta-llama/Llama-3.1-8B-Instruct \
  -tp 2 --port 8000 --max-model-len 8192 --served-model-name llama
environ 1000 HOME=/home/alice PATH=/usr/bin
ln -s ../../rootfs/host host/1000/root
socket 1000 3 50001
socket 1000 4 50005
proc 1001 1000 1000 'VLLM::EngineCor' "$USER_CG" 'VLLM::EngineCore'
printf '\0\0\0\0' >>host/1001/cmdline  # setproctitle pads the old argument area with NULs
proc 1002 1001 1000 'VLLM::Worker_TP' "$USER_CG" 'VLLM::Worker_TP0'
proc 1003 1001 1000 'VLLM::Worker_TP' "$USER_CG" 'VLLM::Worker_TP1'

# SGLang in a Kubernetes pod (cgroup v1, cgroupfs driver), model in the container's filesystem (GPU 2).
K8S_V1_PATH="/kubepods/burstable/pod0f6b2c1e-4d3a-4b8e-9c7d-2a1b3c4d5e6f/$K8S_V1_ID"
proc 2000 1 0 python3 "12:pids:$K8S_V1_PATH"$'\n'"11:memory:$K8S_V1_PATH"$'\n'"1:name=systemd:$K8S_V1_PATH"$'\n0::/\n' \
  python3 -m sglang.launch_server --model-path /models/Qwen2.5-7B --tp 1 --port 30000 --host 127.0.0.1
socket 2000 5 50002
ln -s ../../rootfs/sglang host/2000/root
proc 2001 2000 0 'sglang::schedul' "12:pids:$K8S_V1_PATH"$'\n' 'sglang::scheduler_TP0'

# TGI in a Kubernetes pod (cgroup v2, systemd driver), own network namespace, model id and port in the
# environment, shards on GPUs 3 and 4, the HTTP router as a sibling of the shards.
K8S_V2_CG="0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod7a1c2e3f_0b4d_4e5f_8a9b_0c1d2e3f4a5b.slice/cri-containerd-$K8S_V2_ID.scope"$'\n'
proc 2990 1 0 containerd-shim $'0::/system.slice/containerd.service\n' /usr/bin/containerd-shim-runc-v2 \
  -namespace k8s.io -id "$K8S_V2_ID" -address /run/containerd/containerd.sock
proc 3000 2990 0 text-generation- "$K8S_V2_CG" /usr/local/bin/text-generation-launcher --num-shard 2
environ 3000 MODEL_ID=mistralai/Mixtral-8x7B-v0.1 PORT=80 HF_HOME=/data HOSTNAME=tgi-7c9f
ln -sfn 'net:[4026532999]' host/3000/ns/net
ln -s ../../rootfs/tgi host/3000/root
mkdir -p host/3000/net
printf '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 60001 1 0000000000000000 100 0 0 10 0\n' >host/3000/net/tcp
: >host/3000/net/tcp6
for shard in 3001 3002; do
  proc $shard 3000 0 text-generation- "$K8S_V2_CG" /opt/conda/bin/python3.11 /opt/conda/bin/text-generation-server \
    serve mistralai/Mixtral-8x7B-v0.1 --uds-path "/tmp/text-generation-server-$((shard - 3001))" --sharded
done
proc 3003 3000 0 text-generation- "$K8S_V2_CG" text-generation-router --port 80 --tokenizer-name mistralai/Mixtral-8x7B-v0.1
socket 3003 6 60001

# A plain training script in a docker container (cgroup v2), listening on a torch.distributed port (GPU 5).
proc 4000 1 1001 python "0::/system.slice/docker-$DOCKER_ID.scope"$'\n' python train.py --epochs 3
socket 4000 7 50004

# vLLM whose port comes from a config file: found through its listening IPv6 socket (podman, GPU 6, TP 1:
# the engine core itself holds the GPU).
PODMAN_CG="0::/machine.slice/libpod-$PODMAN_ID.scope/container"$'\n'
proc 5000 1 1000 python3 "$PODMAN_CG" /usr/bin/python3 -m vllm.entrypoints.openai.api_server --config /etc/vllm/serve.yaml
socket 5000 9 50003
proc 5001 5000 1000 'VLLM::EngineCor' "$PODMAN_CG" 'VLLM::EngineCore'

# An unreadable process: no cmdline, a status that cannot be read (a directory), docker cgroup v1 (GPU 7).
mkdir -p host/6000
printf '4:devices:/docker/%s\n' "$OLD_DOCKER_ID" >host/6000/cgroup
mkdir -p host/6000/status
printf 'status is a directory on purpose: reading it fails\n' >host/6000/status/not_a_file

# Host socket table: vLLM :8000, SGLang 127.0.0.1:30000, training :29500, an established connection to :8000,
# and vLLM #2 on [::]:8080.
{
  printf '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'
  printf '   0: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 50001 1 0000000000000000 100 0 0 10 0\n'
  printf '   1: 0100007F:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 50002 1 0000000000000000 100 0 0 10 0\n'
  printf '   2: 00000000:733C 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 50004 1 0000000000000000 100 0 0 10 0\n'
  printf '   3: 0100007F:1F40 0100007F:B26E 01 00000000:00000000 00:00000000 00000000  1000        0 50005 1 0000000000000000 20 4 30 10 -1\n'
} >host/net/tcp
{
  printf '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'
  printf '   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 50003 1 0000000000000000 100 0 0 10 0\n'
} >host/net/tcp6

# Container filesystems reached through /proc/<pid>/root.
mkdir -p rootfs/sglang/models/Qwen2.5-7B
printf '{"architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584, "num_hidden_layers": 28}\n' \
  >rootfs/sglang/models/Qwen2.5-7B/config.json
TGI_REPO=rootfs/tgi/data/hub/models--mistralai--Mixtral-8x7B-v0.1
mkdir -p "$TGI_REPO/refs" "$TGI_REPO/snapshots/1e637f2d7cb0a9d6fb1922f305cb784995190a83" "$TGI_REPO/blobs"
printf '1e637f2d7cb0a9d6fb1922f305cb784995190a83' >"$TGI_REPO/refs/main"
printf '{"architectures": ["MixtralForCausalLM"], "num_local_experts": 8}\n' \
  >"$TGI_REPO/blobs/58ab2d9a1c0f3e4b5a6c7d8e9f0a1b2c3d4e5f60"
ln -s ../../blobs/58ab2d9a1c0f3e4b5a6c7d8e9f0a1b2c3d4e5f60 \
  "$TGI_REPO/snapshots/1e637f2d7cb0a9d6fb1922f305cb784995190a83/config.json"
# alice's Hugging Face cache on the host: refs/main names the older of two snapshots, which must win.
HOST_REPO=rootfs/host/home/alice/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct
mkdir -p "$HOST_REPO/refs" "$HOST_REPO/snapshots/0e9e39f249a16976918f6564b8830bc894c89659" \
  "$HOST_REPO/snapshots/ffffffffffffffffffffffffffffffffffffffff"
printf '0e9e39f249a16976918f6564b8830bc894c89659\n' >"$HOST_REPO/refs/main"
printf '{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096}\n' \
  >"$HOST_REPO/snapshots/0e9e39f249a16976918f6564b8830bc894c89659/config.json"
printf '{"architectures": ["LlamaForCausalLM"], "note": "snapshot not named by refs/main"}\n' \
  >"$HOST_REPO/snapshots/ffffffffffffffffffffffffffffffffffffffff/config.json"
echo "wrote $(find host rootfs | wc -l) entries"
