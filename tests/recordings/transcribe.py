"""How tests/recordings/*.json were transcribed from the real outputs in ../shared/tickets.

Re-run with `python tests/recordings/transcribe.py`; every value is read off the quoted source text,
and what a source does not show is left out of the recording (it replays as NotRecorded)."""
import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
T = REPO.parent / "shared" / "tickets"
OUT = REPO / "tests" / "recordings"

def entry(call, args, value=None, error=None, **extra):
    e = {"call": call, "args": args}
    if error:
        e["error"] = error
    else:
        e["value"] = value
    e.update(extra)
    return e

def save(name, meta, answers, results=()):
    data = {"format": "diagnose.node-recording/1", "meta": meta, "answers": answers, "results": list(results)}
    (OUT / name).write_text(json.dumps(data, indent=1) + "\n")
    print(name, len(answers))

def topo_nv18_answers(text):
    """The GPU rows of an 8-GPU `nvidia-smi topo -m` where every pair reads NV18 -> each GPU's CPU and
    NUMA affinity, and its links 0-17 active with an NVSwitch (remote type 2) at the far end."""
    rows = [l for l in text.splitlines() if re.match(r"GPU\d\t", l)]
    assert len(rows) == 8
    a = []
    for line in rows:
        cells = line.split("\t")
        i = int(cells[0][3:])
        gpu_cells = cells[1:9]
        assert all(c.strip() in ("X", "NV18") for c in gpu_cells), gpu_cells
        cpus = next(c for c in cells if re.fullmatch(r"\d+-\d+(,\d+-\d+)?", c))
        numa = int(cells[cells.index(cpus) + 1])
        a.append(entry("nvmlDeviceGetCpuAffinity", [i], cpus))
        a.append(entry("nvmlDeviceGetMemoryAffinity", [i], str(numa)))
        for link in range(18):
            a.append(entry("nvmlDeviceGetNvLinkState", [i, link], 1))
            a.append(entry("nvmlDeviceGetNvLinkRemoteDeviceType", [i, link], 2))
    return a


# ---------------------------------------------------------------- 080: DGX H100 topo -m
src = (T / "080-vllm-13855-dgx-h100-pin-vllm-to-numa-region/attachment1.txt").read_text()
a = [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], 8)] + topo_nv18_answers(src)
save("dgx-h100-topo-numa.json", {
    "transcribed_from": "../shared/tickets/080-vllm-13855-dgx-h100-pin-vllm-to-numa-region/attachment1.txt "
                        "(`nvidia-smi topo -m` of a DGX H100, lines 4-11; github.com/vllm-project/vllm/issues/13855)",
    "notes": [
        "Every GPU pair reads NV18: 18 bonded NVLinks. Eight GPUs all joined by 18 links each is only possible "
        "through NVSwitch, so each GPU's links 0-17 are recorded active (nvmlDeviceGetNvLinkState=1) with "
        "remote device type 2 (NVML_NVLINK_DEVICE_TYPE_SWITCH), which is how NVML describes that topology.",
        "CPU Affinity and NUMA Affinity columns -> nvmlDeviceGetCpuAffinity (as a CPU list) and "
        "nvmlDeviceGetMemoryAffinity (node scope, as a node list); the GPU NUMA ID column (N/A) is "
        "nvmlDeviceGetNumaNodeId and is not used.",
    ],
    "absent": ["GPU names, UUIDs, bus IDs, memory, clocks, power, PCIe, ECC (topo -m does not show them)",
               "NVLink versions, speeds, remote bus IDs, error counters",
               "NIC rows and the NIC columns (host readings of /sys/class/infiniband were not in the source)",
               "every host reading (/dev/shm, IOMMU, ACS, environment)"],
}, a)

# ---------------------------------------------------------------- 010: A100 nvlink -s + NCCL env
src = (T / "010-nccl-tests-228-a100-p2p-level-loc-forces-shm/attachment1.txt").read_text().splitlines()
log = (T / "010-nccl-tests-228-a100-p2p-level-loc-forces-shm/attachment2.log").read_text().splitlines()
assert log[0].strip() == "NCCL_P2P_LEVEL set by environment to LOC"
a = [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], 8)]
gpu = None
for line in src:
    m = re.match(r"GPU (\d+): (.+) \(UUID: (GPU-[0-9a-f-]+)\)", line)
    if m:
        gpu = int(m.group(1))
        a.append(entry("nvmlDeviceGetName", [gpu], m.group(2)))
        a.append(entry("nvmlDeviceGetUUID", [gpu], m.group(3)))
        continue
    m = re.match(r"\s+Link (\d+): ([\d.]+) GB/s", line)
    if m:
        link = int(m.group(1))
        a.append(entry("nvmlDeviceGetNvLinkState", [gpu, link], 1))
        a.append(entry("nvmlDeviceGetFieldValues", [gpu, 164, link], int(float(m.group(2)) * 1000)))
    if line.strip() == "...":  # the paste stops inside this GPU's list: none of its links is known
        a = [e for e in a if not (e["call"] in ("nvmlDeviceGetNvLinkState", "nvmlDeviceGetFieldValues")
                                  and e["args"][0] == gpu)]
assert not any(e["args"][:1] == [1] for e in a if e["call"] == "nvmlDeviceGetNvLinkState")
a.append(entry("env", [], {"NCCL_P2P_LEVEL": "LOC"}))
save("hgx-a100-nvlink-p2p-level-loc.json", {
    "transcribed_from": "../shared/tickets/010-nccl-tests-228-a100-p2p-level-loc-forces-shm/attachment1.txt "
                        "(`nvidia-smi nvlink -s`, 8x A100-SXM4-80GB NVSwitch node) and attachment2.log line 1 "
                        "('NCCL_P2P_LEVEL set by environment to LOC'); github.com/NVIDIA/nccl-tests/issues/228",
    "notes": [
        "nvlink -s prints a link only when NVML reports it up, so each printed link is recorded with "
        "nvmlDeviceGetNvLinkState=1 and its 'N GB/s' as NVML_FI_DEV_NVLINK_GET_SPEED (field 164) in MB/s.",
        "The device count (8) is the reporter's gpu_count in ticket.toml; the pasted nvlink -s output stops "
        "after GPU 1 link 0 ('...'), so GPU 1's links are left out: one printed link is not its link count.",
        "NCCL printed that NCCL_P2P_LEVEL was set by the environment to LOC: recorded as the environment reading.",
    ],
    "absent": ["GPU 1's links (the paste was cut with '...' after its link 0) and GPUs 2-7 entirely",
               "remote device types and bus IDs (so no NV# path matrix can be derived)",
               "all other NVML fields and host readings"],
}, a)

# ---------------------------------------------------------------- 013: 2 GPUs NV3, slow driver
src = (T / "013-nccl-557-2gpu-nvlink-bridge-hang-slow-nvml/attachment1.txt").read_text().splitlines()
assert src[1].split("\t")[2] == "NV3" and "0-47" in src[1] and "N/A" in src[1]
a = [entry("nvmlInit", [], True, seconds=112.0), entry("nvmlDeviceGetCount", [], 2)]
for i in range(2):
    a.append(entry("nvmlDeviceGetCpuAffinity", [i], "0-47"))
    a.append(entry("nvmlDeviceGetMemoryAffinity", [i], error="NotSupported"))
    for link in range(3):
        a.append(entry("nvmlDeviceGetNvLinkState", [i, link], 1))
        a.append(entry("nvmlDeviceGetNvLinkRemoteDeviceType", [i, link], 0))
save("workstation-2gpu-nvlink-bridge-slow-driver.json", {
    "transcribed_from": "../shared/tickets/013-nccl-557-2gpu-nvlink-bridge-hang-slow-nvml/attachment1.txt "
                        "(`nvidia-smi topo -m`, 2 GPUs with an NVLink bridge) and the reporter's statement that "
                        "the command took 112 seconds; github.com/NVIDIA/nccl/issues/557",
    "notes": [
        "GPU0-GPU1 read NV3: three NVLinks between the two GPUs. Recorded as links 0-2 of each GPU active with "
        "remote device type 0 (NVML_NVLINK_DEVICE_TYPE_GPU); the link numbers themselves are not in the source.",
        "CPU Affinity 0-47 for both; NUMA Affinity N/A -> nvmlDeviceGetMemoryAffinity NotSupported.",
        "`nvidia-smi topo -m` took 112 s end to end; the recording carries those 112 s on nvmlInit, the only "
        "place a single number for the whole run can sit.",
    ],
    "absent": ["GPU names and everything nvidia-smi -q would show (the ticket does not name the GPU model)",
               "remote bus IDs, NVLink versions, speeds and error counters", "all host readings"],
}, a)

# ---------------------------------------------------------------- 021: nvtop 2x 1080 Ti, Gen1 at idle
src = (T / "021-nvtop-6-gen1-at-idle-false-alarm/attachment1.txt").read_text().splitlines()
a = [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], 2)]
for line in src:
    m = re.match(r"Device (\d+) \[(.+)\] PCIe GEN (\d+)@(\d+)x", line)
    i = int(m.group(1))
    a.append(entry("nvmlDeviceGetName", [i], m.group(2)))
    a.append(entry("nvmlDeviceGetCurrPcieLinkGeneration", [i], int(m.group(3))))
    a.append(entry("nvmlDeviceGetCurrPcieLinkWidth", [i], int(m.group(4))))
save("2x-gtx1080ti-pcie-gen1-reading.json", {
    "transcribed_from": "../shared/tickets/021-nvtop-6-gen1-at-idle-false-alarm/attachment1.txt "
                        "(nvtop's device lines, which nvtop reads from NVML's current PCIe generation and width); "
                        "github.com/Syllo/nvtop/issues/6",
    "notes": ["GPU 0 reads GEN 3@16x, GPU 1 GEN 1@16x; nothing says whether the GPUs were busy."],
    "absent": ["max PCIe generation/width, utilisation, clocks and clock-event reasons (so whether the GPU was idle "
               "is unknown)", "bus IDs, everything else NVML would report", "all host readings"],
}, a)

# ---------------------------------------------------------------- 071: HGX H100 smi + p2pBandwidthLatencyTest
smi = (T / "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional/attachment1.txt").read_text().splitlines()
mat = (T / "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional/attachment2.txt").read_text().splitlines()
head = smi[1]
driver = re.search(r"Driver Version: (\S+)", head).group(1)
cuda = re.search(r"CUDA Version: (\S+)", head).group(1)
row1, row2, row3 = smi[7], smi[8], smi[9]
m1 = re.match(r"\|\s+(\d+)\s+(.+?)\s+(On|Off)\s+\|\s+(\S+)\s+(On|Off)\s+\|\s+(\d+)\s+\|", row1)
m2 = re.match(r"\|\s+N/A\s+(\d+)C\s+P(\d)\s+(\d+)W\s*/\s*(\d+)W\s+\|"
              r"\s+(\d+)MiB\s*/\s*(\d+)MiB\s+\|\s+(\d+)%\s+(\S+)\s+\|", row2)
assert m1 and m2 and "Disabled" in row3, (row1, row2)
maj, mnr = cuda.split(".")
a = [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], 8),
     entry("nvmlSystemGetDriverVersion", [], driver),
     entry("nvmlSystemGetCudaDriverVersion", [], int(maj) * 1000 + int(mnr) * 10),
     entry("nvmlDeviceGetName", [0], m1.group(2)),
     entry("nvmlDeviceGetPersistenceMode", [0], 1 if m1.group(3) == "On" else 0),
     entry("nvmlDeviceGetPciInfo", [0], {"busId": m1.group(4)}),
     entry("nvmlDeviceGetTotalEccErrors", [0, 1, 0], int(m1.group(6))),
     entry("nvmlDeviceGetTemperature", [0, 0], int(m2.group(1))),
     entry("nvmlDeviceGetPowerUsage", [0], int(m2.group(3)) * 1000),
     entry("nvmlDeviceGetEnforcedPowerLimit", [0], int(m2.group(4)) * 1000),
     entry("nvmlDeviceGetMemoryInfo", [0], {"total": int(m2.group(6)) * 2**20, "used": int(m2.group(5)) * 2**20}),
     entry("nvmlDeviceGetUtilizationRates", [0], {"gpu": int(m2.group(7)), "memory": None}),
     entry("nvmlDeviceGetComputeMode", [0], 0 if m2.group(8) == "Default" else None),
     entry("nvmlDeviceGetMigMode", [0], [0, 0])]
a += topo_nv18_answers((OUT / "sources" / "hgx-h100-nccl-1264-topo-m.txt").read_text())
results = []
rows = [l.split() for l in mat if re.match(r"\s+\d\s", l)]
for r in rows:
    i = int(r[0])
    for j, v in enumerate(r[1:]):
        if i != j:
            results.append({"type": "PairBandwidth", "source": f"p2pBandwidthLatencyTest (transcribed): GPU{i}->GPU{j}",
                            "a": i, "b": j, "value": float(v), "unit": "GB/s", "direction": "bi", "p2p_enabled": True})
save("hgx-h100-smi-p2p-bidirectional.json", {
    "transcribed_from": "../shared/tickets/071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional/attachment1.txt "
                        "(`nvidia-smi` table, GPU 0 only) and attachment2.txt (p2pBandwidthLatencyTest bidirectional "
                        "P2P=Enabled matrix, 8x H100 SXM on NVSwitch); github.com/NVIDIA/nccl/issues/1264, whose "
                        "description also posts the node's `nvidia-smi topo -m` (section 'Nvidia-smi Topology'): its "
                        "header and GPU rows are kept in tests/recordings/sources/hgx-h100-nccl-1264-topo-m.txt",
    "source_text": ["tests/recordings/sources/hgx-h100-nccl-1264-topo-m.txt"],
    "notes": ["nvidia-smi table row of GPU 0: name, persistence Off, bus 00000000:18:00.0, uncorrected ECC 0, 28C, P0, "
              "88W/700W, 0MiB/81559MiB, 0% util, Default compute mode, MIG Disabled.",
              "The device count (8) is the reporter's gpu_count; the paste shows GPU 0 only.",
              "topo -m: every GPU pair reads NV18, so each GPU's links 0-17 are recorded active with an NVSwitch at "
              "the far end (as for the DGX H100 recording); CPU Affinity 0-55,112-167 (NUMA 0) for GPU0-3, "
              "56-111,168-223 (NUMA 1) for GPU4-7.",
              "The bandwidth matrix is a measurement, recorded under results as PairBandwidth (bidirectional, "
              "P2P enabled)."],
    "absent": ["GPUs 1-7 in the nvidia-smi table (so only GPU 0 has a name)", "NVLink versions, speeds, error counters",
               "the NIC rows of topo -m", "all host readings"],
}, a, results)

# ---------------------------------------------------------------- 8x H100 SXM in a VM (RHEL AI): topo + nvlink
URL = ("https://github.com/starlab3030/rhel-ai/blob/11a2db5cb3c06f0bc520091680659b6cfef6805c/contents/"
       "manage_life-cycle_of_rhel_ai.md (section 3.1.16, checking the GPUs inside the virtual machine)")
src = (OUT / "sources" / "h100-vm-rhel-ai-topo-nvlink.txt").read_text()
names = re.findall(r"^GPU (\d): (NVIDIA H100 80GB HBM3) \(UUID: (GPU-[0-9a-f-]+)\)$", src.split("nvidia-smi topo")[0],
                   re.M)
assert len(names) == 8
a = [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], 8)]
for i, name, uuid in names:
    a += [entry("nvmlDeviceGetName", [int(i)], name), entry("nvmlDeviceGetUUID", [int(i)], uuid)]
a += topo_nv18_answers(src)
status = src.split("nvidia-smi nvlink --status")[1]
gpu = None
for line in status.splitlines():
    if m := re.match(r"GPU (\d+): ", line):
        gpu = int(m.group(1))
    elif m := re.match(r"\s+Link (\d+): ([\d.]+) GB/s", line):
        a.append(entry("nvmlDeviceGetFieldValues", [gpu, 164, int(m.group(1))], int(float(m.group(2)) * 1000)))
save("h100-vm-rhel-ai-topo-nvlink.json", {
    "transcribed_from": f"{URL}; kept verbatim in tests/recordings/sources/h100-vm-rhel-ai-topo-nvlink.txt",
    "source_text": ["tests/recordings/sources/h100-vm-rhel-ai-topo-nvlink.txt"],
    "notes": ["`nvidia-smi --list-gpus`: eight NVIDIA H100 80GB HBM3 (the SXM part) -> names and UUIDs.",
              "`nvidia-smi topo --matrix`: every GPU pair reads NV18 -> links 0-17 of each GPU active with an "
              "NVSwitch at the far end (as for the DGX H100 recording); CPU Affinity 0-63, NUMA 0 for every GPU (one "
              "NUMA node seen by the VM).",
              "`nvidia-smi nvlink --status` prints links 0, 1 and 17 of each GPU at 26.562 GB/s (the author cut the "
              "rest with '...<snip>...'): those three speeds are recorded as field 164 in MB/s.",
              "The GPUs are passed through to a virtual machine (section heading; the fabric manager runs in it)."],
    "absent": ["virtualisation mode (not printed)", "bus IDs, memory, clocks, power, PCIe, ECC, MIG mode",
               "the speeds of links 2-16 (snipped)", "all host readings"],
    "human_reading": "Eight H100 SXM GPUs on NVSwitch, every NVLink up: a healthy node.",
}, a)

# ---------------------------------------------------------------- 022: 8x A40, NVLink pairs, two sockets
base = T / "022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower"
log = (base / "attachment1.txt").read_text().splitlines()
mat = (base / "attachment2.txt").read_text().splitlines()
devices = [re.search(r"device\s+(\d+) \[0x[0-9a-f]+\] (\S+)", l) for l in log if "Rank" in l and "device" in l]
assert len(devices) == 8
a = [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], 8)]
a += [entry("nvmlDeviceGetName", [int(m.group(1))], m.group(2)) for m in devices]
results, enabled = [], None
for line in mat:
    if line.startswith("Bidirectional P2P="):
        enabled = "Enabled" in line
        continue
    cells = line.split()
    if not cells or not cells[0].isdigit():
        continue
    i = int(cells[0])
    for j, v in enumerate(cells[1:]):
        if i != j and re.fullmatch(r"\d+\.\d+", v):  # '41...' where the paste was cut is left out
            source = f"p2pBandwidthLatencyTest (transcribed): P2P={'Enabled' if enabled else 'Disabled'} GPU{i}->GPU{j}"
            results.append({"type": "PairBandwidth", "source": source, "a": i, "b": j, "value": float(v),
                            "unit": "GB/s", "direction": "bi", "p2p_enabled": enabled})
save("8x-a40-nvlink-pairs-two-sockets.json", {
    "transcribed_from": "../shared/tickets/022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower/attachment2.txt "
                        "(p2pBandwidthLatencyTest bidirectional matrices, P2P disabled and enabled) and "
                        "attachment1.txt ('# Using devices' lines of all_reduce_perf: 8 GPUs named A40); "
                        "github.com/NVIDIA/nccl-tests/issues/74",
    "notes": ["Names as nccl-tests printed them ('A40'), one per device line.",
              "Both matrices are measurements, recorded under results as PairBandwidth with p2p_enabled false/true."],
    "absent": ["rows 4-7 of both matrices and the end of row 3 of the enabled one (the paste was cut)",
               "topology, NUMA affinity and every other NVML field", "all host readings (the reporter describes a "
               "dual-socket AMD EPYC 7302 server with four NVLink bridges in ticket.toml)"],
}, a, results)


# ================================================================ public sources (quoted here)
# Each text below is an excerpt of a public GitHub thread, quoted as its reporter pasted it; the
# recording holds only what the excerpt shows, and its meta names the URL.

TOPO_LEVEL = {"PIX": 10, "PXB": 20, "PHB": 30, "NODE": 40, "SYS": 50}
P2P_LETTER = {"OK": 0, "CNS": 1, "GNS": 2, "TNS": 3, "DR": 4, "NS": 5, "U": 6}


def topo_rows(text):
    """`nvidia-smi topo -m` GPU rows -> [(gpu, [cells to other GPUs], cpu affinity, numa affinity)]."""
    rows = [l.split() for l in text.strip().splitlines() if re.match(r"\s*GPU\d+\s", l) and "X" in l.split()]
    n = len(rows)
    return [(int(r[0][3:]), r[1:1 + n], r[1 + n], r[2 + n]) for r in rows]


def topo_answers(text, names):
    a = [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], len(names))]
    rows = topo_rows(text)
    for i, cells, cpus, numa in rows:
        a.append(entry("nvmlDeviceGetName", [i], names[i]))
        a.append(entry("nvmlDeviceGetCpuAffinity", [i], cpus))
        a.append(entry("nvmlDeviceGetMemoryAffinity", [i], numa) if numa.isdigit()
                 else entry("nvmlDeviceGetMemoryAffinity", [i], error="NotSupported"))
        for j, cell in enumerate(cells):
            if j > i and cell in TOPO_LEVEL:
                a.append(entry("nvmlDeviceGetTopologyCommonAncestor", [i, j], TOPO_LEVEL[cell]))
        if not any(c.startswith("NV") for c in cells):  # no NV# in the row: NVML lists no active NVLink
            for link in range(18):
                a.append(entry("nvmlDeviceGetNvLinkState", [i, link], error="NotSupported"))
    return a


def p2p_answers(text, caps=(0, 1)):
    """`nvidia-smi topo -p2p r|w|rw` matrix -> nvmlDeviceGetP2PStatus answers for `caps`."""
    rows = [l.split() for l in text.strip().splitlines() if re.match(r"\s*GPU\d+\s", l) and "X" in l.split()]
    out = []
    for r in rows:
        i = int(r[0][3:])
        for j, cell in enumerate(r[1:]):
            if i != j:
                out += [entry("nvmlDeviceGetP2PStatus", [i, j, cap], P2P_LETTER[cell]) for cap in caps]
    return out


NO_NVLINK_NOTE = ("No NV# in topo -m: NVML answers NotSupported for every NVLink of these GPUs (recorded as "
                  "nvmlDeviceGetNvLinkState NotSupported for links 0-17).")

# ---------------------------------------------------------------- 2x RTX 5090, P2P refused (GNS)
URL = "https://github.com/noonghunna/club-3090/issues/1229"
TOPO = """
\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tPHB\t0-63\t0\t\tN/A
GPU1\tPHB\t X \t0-63\t0\t\tN/A
"""
P2P = """
 \tGPU0\tGPU1\t
 GPU0\tX\tGNS\t
 GPU1\tGNS\tX\t
"""
save("2x-rtx5090-pcie-p2p-gns.json", {
    "transcribed_from": f"{URL} (`nvidia-smi topo -m` and `nvidia-smi topo -p2p rw` of a 2x RTX 5090 workstation, "
                        "Threadripper 3975WX)",
    "source_text": [TOPO.strip(), P2P.strip()],
    "notes": ["GPU names from the thread's title ('2x 5090') and its rig report: NVIDIA GeForce RTX 5090.",
              "topo -p2p rw prints one letter for read and write: GNS (GPU not supported) for both capabilities.",
              NO_NVLINK_NOTE],
    "absent": ["bus IDs, PCIe link readings, clocks, power, memory", "all host readings"],
    "human_reading": "A GeForce pair without NVLink whose stock driver refuses P2P: SHM is expected, not a fault.",
}, p2p_answers(P2P) + topo_answers(TOPO, ["NVIDIA GeForce RTX 5090"] * 2))

# ---------------------------------------------------------------- 2x L4 on two sockets, P2P works
URL = "https://github.com/NVIDIA/cuda-samples/issues/284"
TOPO = """
\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tSYS\t0-7,32-39\t0\t\tN/A
GPU1\tSYS\t X \t16-23,48-55\t2\t\tN/A
"""
SIMPLE_P2P = """
> Peer access from NVIDIA L4 (GPU0) -> NVIDIA L4 (GPU1) : Yes
> Peer access from NVIDIA L4 (GPU1) -> NVIDIA L4 (GPU0) : Yes
cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 19.87GB/s
"""
a = topo_answers(TOPO, ["NVIDIA L4"] * 2)
for m in re.finditer(r"\(GPU(\d)\) -> NVIDIA L4 \(GPU(\d)\) : (Yes|No)", SIMPLE_P2P):
    i, j, yes = int(m.group(1)), int(m.group(2)), m.group(3) == "Yes"
    a += [entry("nvmlDeviceGetP2PStatus", [i, j, cap], 0 if yes else 5) for cap in (0, 1)]
    a.append(entry("nvmlDeviceGetP2PStatus", [i, j, 2], 5))  # NVLINK capability: no NVLink -> NS
save("2x-l4-pcie-two-sockets-p2p-ok.json", {
    "transcribed_from": f"{URL} (`nvidia-smi topo -m` and simpleP2P of a 2x NVIDIA L4 server, GPUs on NUMA 0 and 2)",
    "source_text": [TOPO.strip(), SIMPLE_P2P.strip()],
    "notes": ["simpleP2P's 'Peer access ... : Yes' is cudaDeviceCanAccessPeer, which is true only when the driver "
              "allows P2P read and write: recorded as nvmlDeviceGetP2PStatus OK for capabilities 0 (read) and 1 "
              "(write).",
              "The pair has no NVLink (SYS in topo -m), and NVML answers NS for the NVLINK capability (index 2) of "
              "such a pair, as `nvidia-smi topo -p2p n` prints: recorded as 5 (NS). This is the answer that made every "
              "PCIe box look P2P-disabled.", NO_NVLINK_NOTE],
    "absent": ["bus IDs, PCIe link readings, clocks, power, memory", "all host readings",
               "the 19.87 GB/s memcpy is a 64 MB cudaMemcpyPeer, not recorded as a measurement"],
    "human_reading": "P2P works across the sockets; a healthy PCIe box with its GPUs on two NUMA nodes.",
}, a)

# ---------------------------------------------------------------- 4x L40S on two sockets
URL = "https://github.com/warpem/miss-alignment/issues/106"
TOPO = """
        GPU0    GPU1    GPU2    GPU3    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NODE    SYS     SYS     SYS     SYS     0-95,192-287    0               N/A
GPU1    NODE     X      SYS     SYS     SYS     SYS     0-95,192-287    0               N/A
GPU2    SYS     SYS      X      NODE    NODE    NODE    96-191,288-383  1               N/A
GPU3    SYS     SYS     NODE     X      NODE    NODE    96-191,288-383  1               N/A
"""
rows = [l.split() for l in TOPO.strip().splitlines()[1:]]
TOPO_GPUS = "\n".join(" ".join([r[0]] + r[1:5] + r[7:9]) for r in rows)  # drop the NIC columns
a = topo_answers(TOPO_GPUS, ["NVIDIA L40S"] * 4)
for i in range(4):  # no NV# anywhere: NVML answers NS for the NVLINK capability of every pair
    a += [entry("nvmlDeviceGetP2PStatus", [i, j, 2], 5) for j in range(4) if j != i]
save("4x-l40s-pcie-two-sockets.json", {
    "transcribed_from": f"{URL} (`nvidia-smi topo -m` of a 4x L40S server, two sockets, two mlx5 NICs)",
    "source_text": [TOPO.strip()],
    "notes": ["GPU names from the thread ('GPU L40s'): NVIDIA L40S.",
              "No NV# anywhere: the NVLINK P2P capability (index 2) answers NS for every pair, as `topo -p2p n` "
              "prints.",
              NO_NVLINK_NOTE, "NIC columns left out (no InfiniBand host readings in the source)."],
    "absent": ["P2P read/write status (the thread shows no topo -p2p r)", "bus IDs, PCIe, clocks, power",
               "all host readings"],
    "human_reading": "Two GPUs per socket over PCIe; TP across the sockets crosses the inter-socket link.",
}, a)

# ---------------------------------------------------------------- 2x A100 SXM, one in MIG mode
URL = "https://github.com/XuehaiPan/nvitop/pull/8"
SMI = """
|   0  NVIDIA A100-SXM...  On   | 00000000:01:00.0 Off |                    0 |
| N/A   38C    P0   163W / 500W |  23100MiB / 81920MiB |     58%      Default |
|                               |                      |             Disabled |
|   1  NVIDIA A100-SXM...  On   | 00000000:41:00.0 Off |                   On |
| N/A   38C    P0   178W / 500W |  24205MiB / 81920MiB |     N/A      Default |
|                               |                      |              Enabled |
"""
lines = SMI.strip().splitlines()
a = [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], 2),
     entry("nvmlSystemGetDriverVersion", [], "510.47.03"), entry("nvmlSystemGetCudaDriverVersion", [], 11060)]
for g in range(2):
    l1, l2, l3 = lines[3 * g: 3 * g + 3]
    m1 = re.match(r"\|\s+(\d)\s+(.+?)\s+(On|Off)\s+\|\s+(\S+)\s+(On|Off)\s+\|\s+(\S+)\s+\|", l1)
    m2 = re.match(r"\|\s+N/A\s+(\d+)C\s+P\d\s+(\d+)W / (\d+)W \|\s+(\d+)MiB / (\d+)MiB \|\s+(\S+)\s+(\S+)\s+\|", l2)
    mig = "Enabled" in l3
    a += [entry("nvmlDeviceGetName", [g], "NVIDIA A100-SXM4-80GB"),
          entry("nvmlDeviceGetPersistenceMode", [g], 1 if m1.group(3) == "On" else 0),
          entry("nvmlDeviceGetPciInfo", [g], {"busId": m1.group(4)}),
          entry("nvmlDeviceGetTemperature", [g, 0], int(m2.group(1))),
          entry("nvmlDeviceGetPowerUsage", [g], int(m2.group(2)) * 1000),
          entry("nvmlDeviceGetEnforcedPowerLimit", [g], int(m2.group(3)) * 1000),
          entry("nvmlDeviceGetMemoryInfo", [g], {"total": int(m2.group(5)) * 2**20, "used": int(m2.group(4)) * 2**20}),
          entry("nvmlDeviceGetMigMode", [g], [int(mig), int(mig)])]
    if m2.group(6).endswith("%"):
        a.append(entry("nvmlDeviceGetUtilizationRates", [g], {"gpu": int(m2.group(6)[:-1]), "memory": None}))
    else:  # N/A: NVML does not report whole-GPU utilisation in MIG mode
        a.append(entry("nvmlDeviceGetUtilizationRates", [g], error="NotSupported"))
    if m1.group(6) == "0":
        a.append(entry("nvmlDeviceGetTotalEccErrors", [g, 1, 0], 0))
save("2x-a100-sxm-one-gpu-in-mig-mode.json", {
    "transcribed_from": f"{URL} (`nvidia-smi` table of an A100-SXM server: GPU 0 MIG Disabled, GPU 1 MIG Enabled; "
                        "driver 510.47.03, CUDA 11.6)",
    "source_text": [SMI.strip()],
    "notes": ["The table truncates the name to 'NVIDIA A100-SXM...'; 81920 MiB and a 500 W cap are the A100-SXM4-80GB.",
              "MIG M. Enabled -> nvmlDeviceGetMigMode [1, 1] (current, pending); GPU-Util N/A -> NotSupported.",
              "GPU 1's 'Volatile Uncorr. ECC' reads 'On' (a MIG GPU reports ECC per instance): not recorded.",
              "The thread's test printed 'CUDA device count: 1' with CUDA_VISIBLE_DEVICES unset: CUDA does not "
              "enumerate a MIG-enabled GPU as a device, only its MIG instances by UUID."],
    "absent": ["GPUs beyond the two rows quoted", "NVLink state and topology", "all host readings"],
    "human_reading": "GPU1 is partitioned with MIG: it is not a TP peer (no P2P, no NVLink for instances); "
                     "GPU0 is a normal A100 under load (58%). Nothing is broken.",
}, a)

# ---------------------------------------------------------------- HGX H100: NVLink status (MIG disabled)
URL = "https://github.com/bottlerocket-os/bottlerocket/pull/4418"
NVLINK = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-4039dfe4-0c97-4b1e-683e-eb7d42699053)\n" + "".join(
    f"         Link {k}: 26.562 GB/s\n" for k in range(18)) + \
    "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-dd3b269a-8f3a-d2d5-1518-2713ba03fcf7)\n" + "".join(
    f"         Link {k}: 26.562 GB/s\n" for k in range(18))
a = [entry("nvmlInit", [], True)]
gpu = None
for line in NVLINK.splitlines():
    m = re.match(r"GPU (\d+): (.+) \(UUID: (GPU-[0-9a-f-]+)\)", line)
    if m:
        gpu = int(m.group(1))
        a += [entry("nvmlDeviceGetName", [gpu], m.group(2)), entry("nvmlDeviceGetUUID", [gpu], m.group(3)),
              entry("nvmlDeviceGetMigMode", [gpu], [0, 0])]
        continue
    m = re.match(r"\s+Link (\d+): ([\d.]+) GB/s", line)
    a += [entry("nvmlDeviceGetNvLinkState", [gpu, int(m.group(1))], 1),
          entry("nvmlDeviceGetFieldValues", [gpu, 164, int(m.group(1))], int(float(m.group(2)) * 1000))]
save("hgx-h100-nvlink-status-mig-disabled.json", {
    "transcribed_from": f"{URL} (`nvidia-smi nvlink --status` on an 8x H100 80GB HBM3 node with MIG disabled, "
                        "GPUs 0 and 1 as quoted in the pull request)",
    "source_text": [NVLINK.strip()],
    "notes": ["Each printed link is up (nvmlDeviceGetNvLinkState 1) at 26.562 GB/s (field 164 in MB/s).",
              "MIG disabled per the section heading -> nvmlDeviceGetMigMode [0, 0].",
              "The quote stops at GPU 2: nvmlDeviceGetCount is recorded as 2, the GPUs the source shows."],
    "absent": ["GPUs 2-7", "remote device types (so no NV# matrix)", "fabric state, PCIe, clocks, power",
               "all host readings"],
    "human_reading": "All 18 NVLinks of each H100 are up at full per-link speed.",
}, a[:1] + [entry("nvmlDeviceGetCount", [], 2)] + a[1:])


# ================================================================ nvidia-smi -q / -q -x in tests/data/hardware/real
# Real outputs already in the repository (SOURCES.md there names each URL), read field by field.
REAL = REPO / "tests" / "data" / "hardware" / "real"
SOURCES = (REAL / "SOURCES.md").read_text()
FABRIC = {"Not Supported": 0, "Not Started": 1, "In Progress": 2, "Completed": 3}
REASON_BITS = {"Idle": 0x1, "Applications Clocks Setting": 0x2, "SW Power Cap": 0x4, "HW Slowdown": 0x8,
               "Sync Boost": 0x10, "SW Thermal Slowdown": 0x20, "HW Thermal Slowdown": 0x40,
               "HW Power Brake Slowdown": 0x80, "Display Clock Setting": 0x100}


def source_url(name):
    line = next(l for l in SOURCES.splitlines() if f"`{name}`" in l)
    return re.search(r"https://\S+", line).group(0).rstrip("|) ")


def smi_q_blocks(text):
    """`nvidia-smi -q` -> (header fields, [per-GPU {"Section/Key": value}]); a block cut at its top
    (an excerpt) keeps the fields it has under the paths they have."""
    header, blocks, path = {}, [], []
    current = header
    for line in text.splitlines():
        if not line.strip() or line.startswith("="):
            continue
        m = re.match(r"GPU ([0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)\s*$", line)
        if m:
            current = {"Bus Id": m.group(1)}
            blocks.append(current)
            path = []
            continue
        depth = (len(line) - len(line.lstrip())) // 4
        key, sep, value = line.strip().partition(":")
        key = key.strip()
        path = path[:max(depth - 1, 0)]
        if sep and value.strip():
            current["/".join(path + [key])] = value.strip()
        else:
            path.append(key)
    if any("/" in k for k in header):  # an excerpt that starts inside a GPU block
        blocks, header = [header] + blocks, {}
    return header, blocks


def _num(text):
    m = re.match(r"-?[\d.]+", text or "")
    return float(m.group(0)) if m else None


def smi_q_answers(header, blocks, first_index=0):
    a = [entry("nvmlInit", [], True)]
    if "Driver Version" in header:
        a.append(entry("nvmlSystemGetDriverVersion", [], header["Driver Version"]))
    if _num(header.get("CUDA Version")):
        major, minor = header["CUDA Version"].split(".")
        a.append(entry("nvmlSystemGetCudaDriverVersion", [], int(major) * 1000 + int(minor) * 10))
    a.append(entry("nvmlDeviceGetCount", [], int(header.get("Attached GPUs", len(blocks)))))
    for n, b in enumerate(blocks):
        i = first_index + n

        def put(call, value, *args, i=i):
            if value is not None:
                a.append(entry(call, [i, *args], value))

        put("nvmlDeviceGetName", b.get("Product Name"))
        put("nvmlDeviceGetUUID", b.get("GPU UUID"))
        if "Bus Id" in b:
            device = b.get("PCI/Device Id")
            put("nvmlDeviceGetPciInfo", {"busId": b["Bus Id"], **({"pciDeviceId": int(device, 16)} if device else {})})
        link = "PCI/GPU Link Info/"
        for call, key in (("nvmlDeviceGetMaxPcieLinkGeneration", "PCIe Generation/Max"),
                          ("nvmlDeviceGetCurrPcieLinkGeneration", "PCIe Generation/Current"),
                          ("nvmlDeviceGetMaxPcieLinkWidth", "Link Width/Max"),
                          ("nvmlDeviceGetCurrPcieLinkWidth", "Link Width/Current")):
            value = _num(b.get(link + key))
            put(call, int(value) if value is not None else None)
        if _num(b.get("PCI/Replays Since Reset")) is not None:
            put("nvmlDeviceGetPcieReplayCounter", int(_num(b["PCI/Replays Since Reset"])))
        if "Persistence Mode" in b:
            put("nvmlDeviceGetPersistenceMode", int(b["Persistence Mode"] == "Enabled"))
        mig = b.get("MIG Mode/Current")
        if mig == "N/A":
            a.append(entry("nvmlDeviceGetMigMode", [i], error="NotSupported"))
        elif mig:
            put("nvmlDeviceGetMigMode", [int(mig == "Enabled"), int(b.get("MIG Mode/Pending") == "Enabled")])
        reasons = {k.split("/")[-1]: v for k, v in b.items() if k.startswith("Clocks Event Reasons/")}
        if reasons:
            put("nvmlDeviceGetCurrentClocksEventReasons",
                sum(bit for name, bit in REASON_BITS.items() if reasons.get(name) == "Active"))
        fb = {k: _num(b.get(f"FB Memory Usage/{k.title()}")) for k in ("total", "used", "free")}
        if fb["total"]:
            put("nvmlDeviceGetMemoryInfo", {k: int(v) * 2**20 for k, v in fb.items() if v is not None})
        util = _num(b.get("Utilization/Gpu"))
        if util is not None:
            memory = int(_num(b.get("Utilization/Memory")) or 0)
            put("nvmlDeviceGetUtilizationRates", {"gpu": int(util), "memory": memory})
        elif b.get("Utilization/Gpu") == "N/A":
            a.append(entry("nvmlDeviceGetUtilizationRates", [i], error="NotSupported"))
        if b.get("Compute Mode") == "Default":
            put("nvmlDeviceGetComputeMode", 0)
        ecc = b.get("ECC Mode/Current")
        if ecc in ("Enabled", "Disabled"):
            put("nvmlDeviceGetEccMode", [int(ecc == "Enabled"), int(b.get("ECC Mode/Pending") == "Enabled")])
        temp = _num(b.get("Temperature/GPU Current Temp"))
        put("nvmlDeviceGetTemperature", int(temp) if temp is not None else None, 0)
        for call, key in (("nvmlDeviceGetPowerUsage", "Power Draw"),
                          ("nvmlDeviceGetEnforcedPowerLimit", "Current Power Limit")):
            value = next((_num(v) for k, v in b.items() if k.endswith("/" + key) and _num(v) is not None), None)
            put(call, int(value * 1000) if value is not None else None)
        for call, key in (("nvmlDeviceGetClockInfo", "Clocks/SM"), ("nvmlDeviceGetMaxClockInfo", "Max Clocks/SM")):
            value = _num(b.get(key))
            put(call, int(value) if value is not None else None, 1)
        virt = {"None": 0, "Pass-Through": 1, "VGPU": 2, "Host VGPU": 3, "Host VSGA": 4}
        put("nvmlDeviceGetVirtualizationMode", virt.get(b.get("GPU Virtualization Mode/Virtualization Mode")))
        state = b.get("Fabric/State")
        if state in FABRIC:
            status = b.get("Fabric/Status")
            put("nvmlDeviceGetGpuFabricInfo", {"state": FABRIC[state],
                                               "status": 0 if status == "Success" else None})
        elif state == "N/A":
            a.append(entry("nvmlDeviceGetGpuFabricInfo", [i], error="NotSupported"))
    return a


SMI_Q_NOTES = ["Fields read from the -q text: Product Name, GPU UUID, Bus Id and Device Id, PCIe generation and "
               "width (max/current), replays, persistence, MIG mode, clock event reasons (Active -> the NVML bit), FB "
               "memory, utilisation, compute mode, ECC mode, GPU temperature, power draw and limit, SM clock now/max, "
               "virtualisation mode, fabric state/status. N/A -> NotSupported where NVML answers so."]

# ---------------------------------------------------------------- 8x RTX 4090 (-q of two GPUs)
name = "smi_q_rtx4090_x8_535.txt"
header, blocks = smi_q_blocks((REAL / name).read_text())
save("8x-rtx4090-smi-q-idle-and-loaded.json", {
    "transcribed_from": f"{source_url(name)} (`nvidia-smi -q`, driver 535.154.05, of an 8x GeForce RTX 4090 node: "
                        f"the blocks of GPU 01:00.0 and 23:00.0; tests/data/hardware/real/{name})",
    "source_text": [f"tests/data/hardware/real/{name}"],
    "notes": SMI_Q_NOTES + ["The source shows GPUs 01:00.0 and 23:00.0 only: recorded as indices 0 and 1, the count "
                            "as 8."],
    "absent": ["GPUs 2-7", "topology and P2P status", "NVLink (the 4090 has none)", "all host readings"],
    "human_reading": "GPU 01:00.0 idles at Gen1 (P8, Idle active): power saving. GPU 23:00.0 is busy (97 %) at "
                     "Gen4 x16, at its 450 W cap (SW power cap active): working at its limit, not a fault.",
}, smi_q_answers(header, blocks))

# ---------------------------------------------------------------- HGX H800, fabric In Progress
name = "smi_q_h800_fabric_in_progress_chunk.txt"
header, blocks = smi_q_blocks((REAL / name).read_text())
first = blocks[0]
first["Product Name"] = blocks[1]["Product Name"] if len(blocks) > 1 else None
save("hgx-h800-fabric-in-progress.json", {
    "transcribed_from": f"{source_url(name)} (`nvidia-smi -q` excerpt of an HGX H800 node: the end of one GPU's block, "
                        f"fabric State In Progress, Status N/A; tests/data/hardware/real/{name})",
    "source_text": [f"tests/data/hardware/real/{name}"],
    "notes": SMI_Q_NOTES + ["The excerpt starts inside a GPU block (no bus id); the next block is an 'NVIDIA H800' of "
                            "the same node, so that name is recorded for it; only that first GPU is recorded.",
                            "Fabric Status N/A while the State is In Progress: NVML's status is not valid yet "
                            "(nvml.h); recorded as state 2 with no status."],
    "absent": ["the GPU's identity fields, PCIe, memory, ECC (before the excerpt)", "the other GPUs",
               "NVLink state, topology", "all host readings (the fabric manager service state is unknown)"],
    "human_reading": "The fabric manager has not finished registering the GPU: wait and re-check; not yet a fault.",
}, [entry("nvmlInit", [], True), entry("nvmlDeviceGetCount", [], 1)]
   + [e for e in smi_q_answers({}, blocks[:1]) if e["call"] not in ("nvmlInit", "nvmlDeviceGetCount")])

# ---------------------------------------------------------------- one H200 in a VM (pass-through)
URL = ("https://github.com/thamada/gls/blob/c0bed08d0e20bb1abccfee5aeedb80bc63b493a6/gls/H200_smi.py "
       "(the `nvidia-smi -a` output its simulator prints, `out_a`)")
header, blocks = smi_q_blocks((OUT / "sources" / "h200-vm-one-gpu-smi-q.txt").read_text())
save("h200-vm-one-gpu-smi-q.json", {
    "transcribed_from": f"{URL}; kept verbatim in tests/recordings/sources/h200-vm-one-gpu-smi-q.txt",
    "source_text": ["tests/recordings/sources/h200-vm-one-gpu-smi-q.txt"],
    "notes": SMI_Q_NOTES + ["Attached GPUs 1, Virtualization Mode Pass-Through: one H200 SXM (Module ID 3 of its "
                            "baseboard) passed through to a VM; fabric State Completed, Status Success."],
    "absent": ["topology, NVLink state (a single GPU has no peer)", "all host readings"],
    "human_reading": "A healthy H200 passed through alone to a VM: idle (P0, Idle active), Gen5 x16, ECC clean.",
}, smi_q_answers(header, blocks))

# ---------------------------------------------------------------- `nvidia-smi -q -x` of healthy machines (fa24)
FA24 = REPO / "tests" / "data" / "fa24"
XML_KEYS = {  # the -q -x element path -> the -q text key smi_q_answers reads
    "product_name": "Product Name", "uuid": "GPU UUID", "pci/pci_bus_id": "Bus Id",
    "pci/pci_device_id": "PCI/Device Id", "persistence_mode": "Persistence Mode",
    "pci/pci_gpu_link_info/pcie_gen/max_link_gen": "PCI/GPU Link Info/PCIe Generation/Max",
    "pci/pci_gpu_link_info/pcie_gen/current_link_gen": "PCI/GPU Link Info/PCIe Generation/Current",
    "pci/pci_gpu_link_info/link_widths/max_link_width": "PCI/GPU Link Info/Link Width/Max",
    "pci/pci_gpu_link_info/link_widths/current_link_width": "PCI/GPU Link Info/Link Width/Current",
    "pci/replay_counter": "PCI/Replays Since Reset", "mig_mode/current_mig": "MIG Mode/Current",
    "mig_mode/pending_mig": "MIG Mode/Pending", "fb_memory_usage/total": "FB Memory Usage/Total",
    "fb_memory_usage/used": "FB Memory Usage/Used", "fb_memory_usage/free": "FB Memory Usage/Free",
    "utilization/gpu_util": "Utilization/Gpu", "utilization/memory_util": "Utilization/Memory",
    "compute_mode": "Compute Mode", "ecc_mode/current_ecc": "ECC Mode/Current",
    "ecc_mode/pending_ecc": "ECC Mode/Pending", "temperature/gpu_temp": "Temperature/GPU Current Temp",
    "power_readings/power_draw": "Power Readings/Power Draw",
    "power_readings/current_power_limit": "Power Readings/Current Power Limit",
    "clocks/sm_clock": "Clocks/SM", "max_clocks/sm_clock": "Max Clocks/SM",
    "gpu_virtualization_mode/virtualization_mode": "GPU Virtualization Mode/Virtualization Mode",
    "fabric/state": "Fabric/State", "fabric/status": "Fabric/Status",
}
XML_REASONS = {"gpu_idle": "Idle", "applications_clocks_setting": "Applications Clocks Setting",
               "sw_power_cap": "SW Power Cap", "hw_slowdown": "HW Slowdown", "sync_boost": "Sync Boost",
               "sw_thermal_slowdown": "SW Thermal Slowdown", "hw_thermal_slowdown": "HW Thermal Slowdown",
               "hw_power_brake_slowdown": "HW Power Brake Slowdown", "display_clock_setting": "Display Clock Setting"}


def smi_qx_blocks(text):
    """`nvidia-smi -q -x` -> the (header, blocks) smi_q_blocks gives for the same fields as -q text."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", text))
    header = {"Driver Version": root.findtext("driver_version"), "CUDA Version": root.findtext("cuda_version"),
              "Attached GPUs": root.findtext("attached_gpus")}
    blocks = []
    for gpu in root.findall("gpu"):
        b = {key: gpu.findtext(path).strip() for path, key in XML_KEYS.items() if gpu.findtext(path)}
        # the readings moved between schema versions: gpu_power_readings (v12+), *_throttle_* (before v12)
        for key, paths in (("Power Draw", ("gpu_power_readings/power_draw", "gpu_power_readings/average_power_draw",
                                            "gpu_power_readings/instant_power_draw")),
                           ("Current Power Limit", ("gpu_power_readings/current_power_limit",
                                                    "power_readings/enforced_power_limit"))):
            for path in paths:
                if _num(gpu.findtext(path)) is not None:
                    b.setdefault(f"Power Readings/{key}", gpu.findtext(path))
        for section in ("clocks_event_reasons", "clocks_throttle_reasons"):
            for el in gpu.find(section) if gpu.find(section) is not None else []:
                name = re.sub(r"^clocks_(?:event|throttle)_reason_", "", el.tag)
                if name in XML_REASONS:
                    b[f"Clocks Event Reasons/{XML_REASONS[name]}"] = (el.text or "").strip()
        blocks.append(b)
    return header, blocks


for name, out, reading in (
        ("smi_qx_a10g_aws_passthrough.xml", "a10g-vm-smi-qx-idle-x8.json",
         "One A10G passed through to a VM, idle (P8, Idle active, 0 %): Gen1 x8 of x16 at idle, no load on the "
         "link; nothing broken."),
        ("smi_qx_tesla_t4_passthrough.xml", "t4-vm-smi-qx-x8-no-load.json",
         "One Tesla T4 passed through to a VM at P0 with 0 % utilisation: x8 of x16 read without load; a monitored, "
         "working machine."),
        ("smi_qx_2x_rtx2080.xml", "2x-rtx2080-smi-qx-idle-x8.json",
         "Two idle GeForce RTX 2080 (P8), both at Gen1 x8 of x16: a desktop board with two cards, idle; nothing "
         "broken.")):
    header, blocks = smi_qx_blocks((FA24 / name).read_text())
    url = re.search(r"https://\S+", next(line for line in (FA24 / "SOURCES.md").read_text().splitlines()
                                          if f"`{name}`" in line)).group(0)
    save(out, {
        "transcribed_from": f"{url} (`nvidia-smi -q -x`; tests/data/fa24/{name})",
        "source_text": [f"tests/data/fa24/{name}"],
        "notes": SMI_Q_NOTES + ["Read from the -q -x elements of the same fields (smi_qx_blocks; "
                                "clocks_throttle_reasons before schema v12 as clocks_event_reasons)."],
        "absent": ["topology and P2P status", "NVLink", "all host readings"],
        "human_reading": reading,
    }, smi_q_answers(header, blocks))
