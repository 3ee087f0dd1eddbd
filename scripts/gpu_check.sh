#!/usr/bin/env bash
# The project's GPU check: run on any machine with an NVIDIA GPU (one H200 is enough) in under
# 10 minutes. Everything lands in one folder so it can be committed as fixtures:
#
#   scripts/gpu_check.sh [OUTDIR]        (default: $OUT, else out/gpu-check-<host>-<time>)
#
#   nvidia-smi*.txt           what the driver says (table, -q, topo -m, topo -p2p r, nvlink -s)
#   node-quick.json           diagnose node --quick --json (its time is in summary.txt: target < 60 s)
#   node-standard.json        diagnose node --standard --json (the report)
#   node-recording.json       diagnose node --record: every raw NVML answer, host reading, measurement
#   node-replay.json          the same analysis replayed from the recording (must agree)
#   kernels-vs-catalog.txt    HBM copy and bf16 GEMM per GPU against the catalog
#   pytest-gpu.txt            the gpu-marked tests
#   summary.txt               exit codes and timings of every step
#
# A step that fails is recorded in summary.txt and the script goes on; it exits non-zero if any
# step failed, so a CI job notices.
set -uo pipefail
cd "$(dirname "$0")/.."
OUTDIR="${1:-${OUT:-out/gpu-check-$(hostname)-$(date -u +%Y%m%dT%H%M%SZ)}}"
mkdir -p "$OUTDIR"
PY=${PYTHON:-python3}
[ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ] && PY=.venv/bin/python
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # runs from the checkout, installed or not
FAILED=0

step() {  # step NAME TIMEOUT_S OUTFILE CMD...
    local name=$1 limit=$2 out=$3
    shift 3
    local start=$SECONDS
    timeout "$limit" "$@" >"$OUTDIR/$out" 2>&1
    local rc=$?
    echo "$name: exit $rc in $((SECONDS - start)) s -> $out" | tee -a "$OUTDIR/summary.txt"
    return $rc
}

echo "gpu_check on $(hostname) at $(date -u +%FT%TZ), python $($PY -V 2>&1)" >"$OUTDIR/summary.txt"

step "nvidia-smi" 60 nvidia-smi.txt nvidia-smi || FAILED=1
step "nvidia-smi -q" 60 nvidia-smi-q.txt nvidia-smi -q
step "topo -m" 60 nvidia-smi-topo-m.txt nvidia-smi topo -m
step "topo -p2p r" 60 nvidia-smi-topo-p2p-r.txt nvidia-smi topo -p2p r
step "nvlink -s" 60 nvidia-smi-nvlink-s.txt nvidia-smi nvlink -s
step "python modules" 60 modules.txt $PY -c "
import importlib.util as u
need = ['click', 'rich', 'pandas', 'sqlite_utils', 'pynvml', 'torch', 'pytest']
missing = [m for m in need if u.find_spec(m) is None]
print('missing:', ', '.join(missing) or 'none')
raise SystemExit(1 if missing else 0)" || FAILED=1
step "torch" 60 torch.txt $PY -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.device_count(), torch.cuda.nccl.version() if torch.cuda.is_available() else None)"

# The node check itself (exit 1 = a critical finding, which is a result, not a failure of the tool).
step "diagnose node --quick" 120 node-quick.log \
    $PY -m diagnose node --quick --json -o "$OUTDIR/node-quick.json" --fail-on never || FAILED=1
step "diagnose node --standard" 360 node-standard.log \
    $PY -m diagnose node --standard --timeout 120 --json -o "$OUTDIR/node-standard.json" \
    --record "$OUTDIR/node-recording.json" --fail-on never || FAILED=1
step "diagnose node --replay" 60 node-replay.log \
    $PY -m diagnose node --replay "$OUTDIR/node-recording.json" --json -o "$OUTDIR/node-replay.json" --fail-on never || FAILED=1
step "replay agrees" 30 replay-agrees.txt $PY - "$OUTDIR" <<'EOF' || FAILED=1
import json, sys
out = sys.argv[1]
live = json.load(open(f"{out}/node-standard.json"))
again = json.load(open(f"{out}/node-replay.json"))
key = lambda r: sorted((f["rule"], f["category"], f["severity"]) for f in r["findings"])
print("live verdict:  ", live["verdict"]["category"], "-", live["verdict"]["summary"])
print("replay verdict:", again["verdict"]["category"])
missing = set(key(live)) ^ set(key(again))
print("findings that differ:", sorted(missing) or "none")
sys.exit(1 if missing else 0)
EOF

step "kernels vs catalog" 180 kernels-vs-catalog.txt $PY - <<'EOF' || FAILED=1
import torch
from probes import kernels
from rules.catalog import find_gpu

print(f"{'gpu':>3} {'name':<28} {'metric':<12} {'measured':>10} {'catalog':>9} {'ratio':>6}")
for i in range(torch.cuda.device_count()):
    name = torch.cuda.get_device_name(i)
    spec = find_gpu(name=name)
    hbm = kernels.hbm_bandwidth(i)
    gemm = kernels.gemm_tflops(i, "bf16")
    for metric, m, ref in (("hbm GB/s", hbm, spec and spec.hbm_gbs), ("bf16 TFLOP/s", gemm, spec and spec.bf16_tflops)):
        ratio = f"{m.value / ref:.2f}" if ref else "-"
        print(f"{i:>3} {name[:28]:<28} {metric:<12} {m.value:>10.1f} {ref or '-':>9} {ratio:>6}")
EOF

step "pytest -m gpu" 240 pytest-gpu.txt $PY -m pytest -q -m gpu tests/ -p no:cacheprovider || FAILED=1

echo "done: $OUTDIR (failed steps: $FAILED)" | tee -a "$OUTDIR/summary.txt"
exit $FAILED
