#!/usr/bin/env bash
# The project's GPU check, for a fresh machine with an NVIDIA GPU (one is enough), in under 8
# minutes. It brings what it needs: the torch already installed if that torch sees the GPU,
# else a torch wheel built for a CUDA the driver supports; the project's own dependencies if
# they are missing. It fails loudly when nothing was measured, and leaves two files:
#
#   scripts/gpu_check.sh [DEST]      (default: $OUT, else out/)
#
#   DEST/gpu-check-<host>.tar.gz     everything below, in one folder
#   DEST/summary.txt                 exit code and time of every step, and the verdict
#
#   inside the tarball:
#     nvidia-smi*.txt            what the driver says (table, -q, topo -m, topo -p2p r, nvlink -s)
#     env.txt                    python, torch, CUDA as torch and the driver see them, how torch was found
#     node-quick.json            diagnose node --quick --json
#     node-standard.json         diagnose node --standard --json (the report)
#     node-recording.json        diagnose node --record: every raw NVML answer, host reading, measurement
#     node-replay.json           the same analysis replayed from the recording (must agree)
#     measured.txt               what the standard run measured (fails when nothing was)
#     kernels-vs-catalog.txt     HBM copy and bf16 GEMM per GPU against the catalog
#     kernel-sweep.csv           every weight GEMM of Llama-3 8B/70B shards, timed (benchmarks/kernel_accuracy.py)
#     pytest-gpu.txt             the gpu-marked tests, the deadline tests and the stand-in libnvidia-ml test
#
# GPU_CHECK_DRY_RUN=1 prints every step's command instead of running it (no GPU needed).
# GPU_CHECK_BUDGET_S (default 330) is the time after which remaining steps are skipped (and fail):
# the last step may run 150 s more, so the whole check ends within 8 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
DEST="${1:-${OUT:-out}}"
DRY="${GPU_CHECK_DRY_RUN:-0}"
BUDGET="${GPU_CHECK_BUDGET_S:-330}"
HOST="$(hostname 2>/dev/null || echo host)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-XXXXXX")/gpu-check-$HOST"
mkdir -p "$WORK" "$DEST"
SUMMARY="$WORK/summary.txt"
FAILED=0

note() { echo "$*" | tee -a "$SUMMARY"; }

step() {  # step NAME TIMEOUT_S OUTFILE CMD...   (a step past the budget is skipped and fails)
    local name=$1 limit=$2 out=$3
    shift 3
    if [ "$DRY" = 1 ]; then
        note "would run: $name (limit ${limit} s) -> $out: $*"
        return 0
    fi
    if [ "$SECONDS" -ge "$BUDGET" ]; then
        note "$name: SKIPPED, time budget of $BUDGET s spent -> counts as a failure"
        return 1
    fi
    local start=$SECONDS
    timeout -k 10 "$limit" "$@" >"$WORK/$out" 2>&1
    local rc=$?
    note "$name: exit $rc in $((SECONDS - start)) s -> $out"
    return $rc
}

finish() {
    note "done in $SECONDS s: $([ "$FAILED" = 0 ] && echo PASS || echo "FAIL (see the steps above)")"
    cp "$SUMMARY" "$DEST/summary.txt"
    if [ "$DRY" != 1 ]; then
        tar -czf "$DEST/gpu-check-$HOST.tar.gz" -C "$(dirname "$WORK")" "$(basename "$WORK")"
        echo "results: $DEST/gpu-check-$HOST.tar.gz and $DEST/summary.txt"
    fi
    rm -rf "$(dirname "$WORK")"
    exit "$FAILED"
}

note "gpu_check on $HOST at $(date -u +%FT%TZ)"

# ---------------------------------------------------------------- the driver
if [ "$DRY" != 1 ] && ! command -v nvidia-smi >/dev/null; then
    note "FAIL: nvidia-smi not found: no NVIDIA driver on this machine, nothing can be checked"
    FAILED=1
    finish
fi
step "nvidia-smi" 30 nvidia-smi.txt nvidia-smi || FAILED=1
step "nvidia-smi -q" 30 nvidia-smi-q.txt nvidia-smi -q
step "topo -m" 30 nvidia-smi-topo-m.txt nvidia-smi topo -m
step "topo -p2p r" 30 nvidia-smi-topo-p2p-r.txt nvidia-smi topo -p2p r
step "nvlink -s" 30 nvidia-smi-nvlink-s.txt nvidia-smi nvlink -s
DRIVER_CUDA="$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\.[0-9]*\).*/\1/p' | head -1)"
note "driver supports CUDA ${DRIVER_CUDA:-unknown}"

# ---------------------------------------------------------------- python and torch
PY="${PYTHON:-}"
[ -z "$PY" ] && [ -x .venv/bin/python ] && PY=.venv/bin/python
[ -z "$PY" ] && PY=python3
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # runs from the checkout, installed or not

sees_gpu() { "$1" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" >/dev/null 2>&1; }

wheel_tag() {  # the newest PyTorch CUDA wheel the driver's CUDA version can run
    local have=${1:-0.0} best="" tag
    for tag in 11.8 12.1 12.4 12.6 12.8 13.0; do
        if [ "$(printf '%s\n%s\n' "$tag" "$have" | sort -V | head -1)" = "$tag" ]; then best=$tag; fi
    done
    [ -n "$best" ] && echo "cu${best/./}"
}

TORCH_FROM="present"
if [ "$DRY" = 1 ]; then
    note "would use $PY if its torch sees the GPU, else install torch from https://download.pytorch.org/whl/$(wheel_tag "${DRIVER_CUDA:-12.4}")"
elif ! sees_gpu "$PY"; then
    TAG="$(wheel_tag "$DRIVER_CUDA")"
    if [ -z "$TAG" ]; then
        note "FAIL: the driver's CUDA ${DRIVER_CUDA:-?} is older than any PyTorch CUDA wheel (11.8)"
        FAILED=1
        finish
    fi
    VENV="$(dirname "$WORK")/venv"
    python3 -m venv --system-site-packages "$VENV" && PY="$VENV/bin/python"
    step "install torch ($TAG)" 240 install-torch.txt "$PY" -m pip install --quiet torch \
        --index-url "https://download.pytorch.org/whl/$TAG" || FAILED=1
    TORCH_FROM="installed from the $TAG wheel index"
    if ! sees_gpu "$PY"; then
        note "FAIL: no torch that sees the GPU (present one does not; installing $TAG failed or does not either)"
        FAILED=1
        finish
    fi
fi
if [ "$DRY" != 1 ] && ! "$PY" -c "import click, rich, pandas, sqlite_utils, pynvml, pytest" 2>/dev/null; then
    step "install the project" 180 install-project.txt "$PY" -m pip install --quiet -e ".[test]" || FAILED=1
fi
step "environment" 60 env.txt "$PY" -c "
import sys, torch
print('python', sys.version.split()[0])
print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available(),
      'devices', torch.cuda.device_count(), 'nccl', torch.cuda.nccl.version() if torch.cuda.is_available() else None)
print('torch found:', '$TORCH_FROM')" || FAILED=1

# ---------------------------------------------------------------- the node check
# exit 1 = a critical finding, which is a result, not a failure of the tool
step "diagnose node --quick" 120 node-quick.log \
    "$PY" -m diagnose node --quick --timeout 60 --json -o "$WORK/node-quick.json" --fail-on never || FAILED=1
step "diagnose node --standard" 240 node-standard.log \
    "$PY" -m diagnose node --standard --timeout 60 --json -o "$WORK/node-standard.json" \
    --record "$WORK/node-recording.json" --fail-on never || FAILED=1
step "diagnose node --replay" 60 node-replay.log \
    "$PY" -m diagnose node --replay "$WORK/node-recording.json" --json -o "$WORK/node-replay.json" --fail-on never || FAILED=1
step "replay agrees, something was measured" 30 measured.txt "$PY" - "$WORK" <<'EOF' || FAILED=1
import json, sys
out = sys.argv[1]
live = json.load(open(f"{out}/node-standard.json"))
again = json.load(open(f"{out}/node-replay.json"))
key = lambda r: sorted((f["rule"], f["category"], f["severity"]) for f in r["findings"])
print("live verdict:  ", live["verdict"]["category"], "-", live["verdict"]["summary"])
print("replay verdict:", again["verdict"]["category"])
differ = sorted(set(key(live)) ^ set(key(again)))
print("findings that differ:", differ or "none")
facts = live["facts"]
measured = {k: len(facts.get(k, [])) for k in ("collective_result", "measurement", "pair_bandwidth")}
print("measured records:", measured)
for f in facts.get("probe_failure", []):
    print("probe failure:", f["probe"], f["reason"], "-", f["detail"][:200])
under_load = [g["index"] for g in facts.get("gpu_fact", []) if g.get("pcie_read_under_load")]
print("PCIe read under load on GPUs:", under_load or "none")
if not sum(measured.values()):
    print("FAIL: nothing was measured; the report above says why")
sys.exit(1 if differ or not sum(measured.values()) else 0)
EOF

step "kernels vs catalog" 120 kernels-vs-catalog.txt "$PY" - <<'EOF' || FAILED=1
import torch
from probes import kernels
from rules.catalog import find_gpu

print(f"{'gpu':>3} {'name':<28} {'metric':<12} {'measured':>10} {'catalog':>9} {'ratio':>6}")
for i in range(torch.cuda.device_count()):
    name = torch.cuda.get_device_name(i)
    spec = find_gpu(name=name)
    hbm, gemm, h2d = kernels.hbm_bandwidth(i), kernels.gemm_tflops(i, "bf16"), kernels.host_copies(i)[0]
    for metric, m, ref in (("hbm GB/s", hbm, spec and spec.hbm_gbs), ("bf16 TFLOP/s", gemm, spec and spec.bf16_tflops),
                           ("h2d GB/s", h2d, None)):
        ratio = f"{m.value / ref:.2f}" if ref else "-"
        print(f"{i:>3} {name[:28]:<28} {metric:<12} {m.value:>10.1f} {ref or '-':>9} {ratio:>6}")
EOF

step "weight GEMM sweep" 90 kernel-sweep.log "$PY" scripts/kernel_sweep.py "$WORK/kernel-sweep.csv" --budget-s 60 \
    || FAILED=1

step "pytest: gpu, deadlines, stand-in NVML" 150 pytest-gpu.txt "$PY" -m pytest -q -p no:cacheprovider -rs \
    tests/test_probes_gpu.py tests/test_probe_deadlines.py tests/test_recording_input.py || FAILED=1
if [ "$DRY" != 1 ] && ! grep -Eq "[1-9][0-9]* passed" "$WORK/pytest-gpu.txt"; then
    note "FAIL: no test passed (all skipped?): see pytest-gpu.txt"
    FAILED=1
fi
if [ "$DRY" != 1 ] && grep -Eq "SKIPPED.*test_probes_gpu.py.*(needs an NVIDIA GPU|torch has no CUDA)" "$WORK/pytest-gpu.txt"; then
    note "FAIL: GPU tests skipped although this is the GPU check: see pytest-gpu.txt"
    FAILED=1
fi
finish
