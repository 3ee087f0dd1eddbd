"""A pasted GitHub issue as a ticket: detection, prose vs pasted output, and the workload the
prose names. Real issues from tests/data/tickets (development part) and variants of their text."""

from pathlib import Path

import pytest

from diagnose.artifacts import detect, issue_md, parse_text
from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement, NcclTransport, Note, TopologyPath, Workload

CORPUS = Path(__file__).parent / "data" / "tickets"


def case(prefix: str) -> Path:
    (folder,) = [p for p in CORPUS.iterdir() if p.name.startswith(prefix + "-")]
    return folder / "issue.md"


def facts_of(text: str, name: str = "issue.md"):
    records, read = parse_text(text, name)
    return records, read


def of(records, cls):
    return [r for r in records if isinstance(r, cls)]


def test_every_corpus_issue_is_read_as_an_issue():
    for path in sorted(CORPUS.glob("*/issue.md")):
        _, read = parse_text(path.read_text(), "issue.md")
        assert read.kinds[:1] == ["issue_md"], (path.parent.name, read.kinds)


def test_tool_outputs_are_not_taken_for_issues():
    for sample in ("# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20\n#\n"
                   "# Using devices\n#  Rank  0 Group  0 Pid  1 on host device  0 [0x18] NVIDIA H100\n",
                   "host:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                   "host:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0\n",
                   "# lspci -vvv -s 0000:41:00.0  (GPU function: LnkCap/LnkSta)\n"
                   "\t\tLnkSta:\tSpeed 2.5GT/s, Width x8\n"):
        assert "issue_md" not in [k for k, _ in detect(sample)]


def test_the_topology_pasted_without_a_fence_is_read_with_the_issue_line_numbers():
    # n022: a topo matrix pasted straight into the prose, then the reporter's words
    records, read = facts_of(case("n022").read_text())
    assert read.kinds[0] == "issue_md" and "topo_matrix" in read.kinds
    paths = of(records, TopologyPath)
    assert {(p.a, p.b, p.path) for p in paths} >= {("GPU0", "GPU1", "PXB"), ("GPU2", "GPU3", "PIX"),
                                                   ("GPU0", "GPU2", "SYS")}
    assert paths[0].source.startswith("issue.md:4")  # the matrix's line in the issue, not in a block
    (desc,) = [n for n in of(records, Note) if n.kind == "description"]
    assert "works fine only with those linked through SYS" in desc.text


def test_code_blocks_go_through_the_artifact_parsers():
    # n018: an NCCL_DEBUG log in a fenced block
    records, read = facts_of(case("n018").read_text())
    assert "nccl_log" in read.kinds
    assert any(t.transport == "P2P" for t in of(records, NcclTransport))
    assert any(n.kind == "pasted_output" for n in of(records, Note))


def test_the_workload_the_prose_names():
    text = ("# TP=4 is slower than TP=2\n\nWe run meta-llama/Llama-3.1-70B-Instruct on 8xH100 SXM with vLLM 0.6.3.\n"
            "With tensor parallel 4 we get 31.5 tok/s, with TP=2 we get 35 tokens/s at batch size 1.\n")
    records, _ = facts_of(text)
    w = {k: v for r in of(records, Workload) for k, v in vars(r).items() if v not in (None, {}, [])}
    assert w["gpu"] == "H100 SXM" and w["gpu_count"] == 8 and w["model"] == "meta-llama/Llama-3.1-70B-Instruct"
    assert w["framework"] == "vLLM 0.6.3" and w["tp"] == 4  # with the release it states (cr10 #4)
    rates = [(m.value, m.tp, m.batch) for m in of(records, Measurement)]
    assert rates == [(31.5, 4, None), (35.0, 2, 1)]


def test_rates_under_a_heading_inherit_its_layout():
    # h007 (text-generation-webui): "With TP:" / "Without TP:" above the result lines
    records, _ = facts_of(case("h007").read_text())
    by_tp = {}
    for m in of(records, Measurement):
        by_tp.setdefault(m.tp, []).append(m.value)
    assert by_tp == {2: [2.75, 2.26], 1: [9.93, 8.87]}


def test_prompt_throughput_is_not_a_decode_rate():
    records, _ = facts_of("# Slow after upgrade\n\nOn 0.3.2: `Avg prompt throughput: 175.5 tokens/s, "
                          "Avg generation throughput: 15.5 tokens/s,` on one GPU, much slower than before.\n")
    assert sorted((m.metric, m.value) for m in of(records, Measurement)) == [("decode_tok_s", 15.5),
                                                                             ("prefill_tok_s", 175.5)]


@pytest.mark.parametrize("line,metric,value", [
    ("the all_reduce busbw is about 180GB/s with 4 nodes", "busbw_gbs", 180.0),
    ("We measure an algbw of 250 GB/s in all_reduce_perf", "algbw_gbs", 250.0),
])
def test_bandwidth_figures_in_bytes(line, metric, value):
    records, _ = facts_of(f"# Bandwidth question\n\n{line}, is this normal for our cluster?\n")
    assert [(m.metric, m.value) for m in of(records, Measurement)] == [(metric, value)]


@pytest.mark.parametrize("line,value", [
    ("all_reduce_perf on the 8 GPUs: we observed a bus bw of 480 GB/s while the NVLink spec is 900 GB/s", 480.0),
    ("between the two nodes we only get 35 GB/s bandwidth in all_reduce_perf", 35.0),
])
def test_a_measured_bandwidth_in_words_is_read_and_a_spec_figure_is_not(line, value):
    records, _ = facts_of(f"# Is this bandwidth normal\n\n{line}.\n")
    assert [m.value for m in of(records, Measurement)] == [value]


def test_a_link_rate_in_bits_is_not_a_measured_bandwidth():
    records, _ = facts_of("# IB question\n\nTwo nodes are connected with 200Gb/s HDR InfiniBand and the bus bandwidth "
                          "is 200Gb/s at most, why is that?\n")
    assert not of(records, Measurement)
    records, _ = facts_of("# IB question\n\nBetween the two nodes we only get 200Gb/s bandwidth in all_reduce_perf, "
                          "is that normal?\n")
    assert not of(records, Measurement)


def test_gpus_listed_in_an_inventory_are_mixed_gpus_but_compared_machines_are_not():
    records, _ = facts_of("# slow with three cards\n\nGeneration is slow when all cards are enabled.\n\n"
                          "- GPU: \n - 1 RTX 4070ti\n - 2 RTX 1660ti\n")
    (note,) = [n for n in of(records, Note) if n.kind == "gpus_named"]
    assert {g["name"] for g in note.data["gpus"] if g["listed"]} == {"4070TI", "1660TI"}
    records, _ = facts_of("# Which is faster\n\nOur 8x H100 box decodes slower than the 4x A100 PCIe box, how come "
                          "given that the H100 has much more bandwidth than the A100?\n")
    notes = [n for n in of(records, Note) if n.kind == "gpus_named"]
    assert all(not g["listed"] or g["compared"] for n in notes for g in n.data["gpus"])


def test_family_gpu_names_and_counts_in_words():
    records, _ = facts_of("# Slower with TP\n\nHi, when I am running four A100 with tensor_parallel_size 4 it is "
                          "twice as slow as a single card.\n")
    (w,) = [r for r in of(records, Workload) if r.gpu]
    assert (w.gpu, w.gpu_count) == ("A100", 4)


def test_a_ticket_folder_with_an_issue_reads_like_any_bundle():
    facts = read_bundle([case("h016").parent])
    assert [f.label() for f in facts.files] == ["issue.md (issue_md)"]
    assert issue_md.KIND == "issue_md"


def test_a_one_word_title_is_a_title_when_a_sentence_follows():
    # a tool's name as the whole title (cuda-samples issues are often titled so)
    text = ("# p2pBandwidthLatencyTest\n\nSeeing this on a 4xH100 system\n\nThe spec says the link is 300 GB/s, "
            "is it possible to close the gap between the two?\n")
    assert "issue_md" in [k for k, _ in detect(text)]
    # ... but a one-word heading over log lines is not an issue
    log = "# results\nGPU0 GPU1 260.89\nGPU1 GPU0 259.10\n"
    assert "issue_md" not in [k for k, _ in detect(log)]


def test_gpus_in_the_rows_of_a_results_table_are_compared_not_an_inventory():
    # t003: a latency table over A100 and H100 deployments is a comparison, not one mixed machine
    records, _ = facts_of(case("t003").read_text())
    (named,) = [n for n in of(records, Note) if n.kind == "gpus_named"]
    rows = [g for g in named.data["gpus"] if g["line"] > 9]
    assert rows and all(g["compared"] for g in rows)
    # the same names in an nvidia-smi box row stay an inventory (one number-like cell)
    smi = ("|   0  NVIDIA A100-SXM4-80GB   On  | 00000000:07:00.0 Off |   0 |\n"
           "|   1  NVIDIA H100 80GB HBM3   On  | 00000000:0F:00.0 Off |   0 |")
    assert not any(issue_md._result_row(ln) for ln in smi.splitlines())


def test_angle_brackets_around_numbers_are_prose_not_html():
    # t009: "(<3B parameters) ... 50% GPU utilization ... (>7B)" must survive the markup strip
    records, _ = facts_of(case("t009").read_text())
    (desc,) = [n for n in of(records, Note) if n.kind == "description"]
    assert "50% GPU utilization" in desc.text and "<3B" in desc.text
    assert issue_md._plain("a <b>bold</b> word <br/> end") == "a bold word end"


def test_a_results_table_of_gpu_counts_is_read_as_a_set():
    # t003: "| GPU | #GPU | Average | P50 | P99 |", per-token latency in ms said in the sentence above
    records, _ = facts_of(case("t003").read_text())
    (table,) = [n for n in of(records, Note) if n.kind == "results_table"]
    a100 = [(r["gpus"], r["value"]) for r in table.data["rows"] if r["label"] == "A100-80G"]
    assert a100 == [(1, 46.79), (2, 29.39), (4, 32.06)]
    assert {r["kind"] for r in table.data["rows"]} == {"ms"} and table.source == "issue.md:9"
    # a table without a GPU-count column is no comparison set
    records, _ = facts_of("# Bench\n\nWe measured decode speed for each model on our box:\n\n| model | tok/s |\n"
                          "|---|---|\n| 7B | 90 |\n| 13B | 50 |\n")
    assert not [n for n in of(records, Note) if n.kind == "results_table"]


def test_a_column_numbering_the_gpus_is_not_a_layout():
    # per-GPU readings ("| GPU | latency ms |" with 0, 1, 2) are one machine's GPUs, not GPU counts
    text = ("# Uneven GPUs\n\nThe step latency per GPU in ms looks uneven, is this normal?\n\n"
            "| GPU | latency | util |\n|---|---|---|\n| 0 | 12.1 | 90 |\n| 1 | 12.3 | 91 |\n| 2 | 30.5 | 40 |\n")
    records, _ = facts_of(text)
    assert not [n for n in of(records, Note) if n.kind == "results_table"]
    counted = text.replace("| GPU |", "| GPUs |").replace("| 0 |", "| 4 |")
    records, _ = facts_of(counted)
    assert [n for n in of(records, Note) if n.kind == "results_table"]


def test_a_wide_results_table_with_html_cells_is_read_per_layout_column():
    # t029: "| | batch-size | tp=2 | tp=4 | tp=8 |", cells like "5.50s<br/>36.2tok/s" and <font> tags
    records, _ = facts_of(case("t029").read_text())
    (table,) = [n for n in of(records, Note) if n.kind == "results_table"]
    batch16 = [(r["gpus"], r["value"]) for r in table.data["rows"] if r["label"] == "16"]
    assert batch16 == [(2, 528.0), (4, 660.0), (8, 760.0)] and {r["kind"] for r in table.data["rows"]} == {"rate"}


def test_an_nvbandwidth_matrix_pasted_in_an_issue_is_read():
    # t025: "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)", numbered columns, N/A diagonal
    from diagnose.evidence import PairBandwidth

    records, read = facts_of(case("t025").read_text())
    pairs = of(records, PairBandwidth)
    assert "p2p_test" in read.kinds and len(pairs) == 30
    assert {(p.a, p.b, p.value) for p in pairs} >= {(0, 1, 26.34), (3, 0, 21.82), (5, 4, 26.35)}


def test_the_gpu_count_may_come_after_a_title_that_names_the_gpu_alone():
    # t031: the title says "M40 24GB", the first sentence "on 8xM40 GPU"
    records, _ = facts_of(case("t031").read_text())
    (w,) = [w for w in of(records, Workload) if w.gpu]
    assert w.gpu.startswith("M40") and w.gpu_count == 8
    # workstation Ada names: "2x RTX 5880 Ada"
    records, _ = facts_of("# Deadlock on 2x RTX 5880 Ada\n\nThe all-reduce never returns on our two "
                          "workstation cards here.\n")
    assert [(w.gpu, w.gpu_count) for w in of(records, Workload) if w.gpu] == [("RTX 5880 Ada", 2)]


@pytest.mark.parametrize("figure, value", [
    ("180 GB/s", 180.0), ("180 GBps", 180.0), ("180 GB/sec", 180.0),  # bytes, as nccl-tests prints them
    ("180 Gb/s", 22.5), ("180 Gbps", 22.5),  # bits: an eighth
    ("180 GiB/s", 193.274),  # binary gigabytes: 2^30 B
    ("180000 MB/s", 180.0), ("900 MB/s", 0.9),
])
def test_a_named_bandwidth_is_read_in_its_own_unit(figure, value):
    """The unit as written decides the figure in GB/s (1e9 B/s); none is dropped and none is taken for another."""
    records, _ = facts_of(f"# Bandwidth question\n\nOn 8 GPUs the all_reduce busbw is {figure} at 8 GB, "
                          "is this normal?\n")
    assert [(m.metric, round(m.value, 3)) for m in of(records, Measurement)] == [("busbw_gbs", value)]


@pytest.mark.parametrize("said", [f"an inter-token latency of {t}" for t in (
    "0.045 s", "45 ms", "45000 us", "45,000 µs", "45000 usec", "45000 microseconds")]
    + ["45000 us per token", "0.045 s/token"])
def test_a_per_token_latency_in_any_time_unit(said):
    """The same 45 ms inter-token latency as people write it (the seconds form was read, microseconds not)."""
    records, _ = facts_of("# Llama-3-70B on 8x H100 SXM with vLLM is slow\n\n"
                          "I serve meta-llama/Meta-Llama-3-70B-Instruct with vLLM 0.6.3, tensor-parallel-size 8, "
                          "on one 8x H100 SXM node (NVSwitch).\n"
                          f"Batch size 1, single request. I get {said}.\n")
    assert [(m.metric, m.value) for m in of(records, Measurement)] == [("itl_ms", 45.0)]


PUBLIC = Path(__file__).parent / "data" / "issues"


def test_each_figure_takes_the_ranks_of_the_run_it_points_at_and_a_wished_figure_is_not_measured():
    """nccl-tests#178 (https://github.com/NVIDIA/nccl-tests/issues/178): "Bus_BW: 208 GBps" before `-g 1 -t 2`,
    "bus_bw drops to 20 GBps" before `-g 1 -t 3` (threads x GPUs = ranks), and "close to 200 GBps?" asked for."""
    records, _ = facts_of((PUBLIC / "nccl-tests-178-a100-nv12-pairs-3-gpu-ring.md").read_text())
    assert [(m.value, m.gpus) for m in of(records, Measurement)] == [(208.0, 2), (20.0, 3)]
    # the same sentences with the figure after its command: the run just before it
    records, _ = facts_of("# A100 all reduce\n\nWe ran the test on two GPUs first.\n```\n./build/all_reduce_perf -b 8 "
                          "-e 12G -f 2 -g 1 -t 2\n```\nThe busbw reached 208 GB/s, then a third GPU was added.\n")
    assert [(m.value, m.gpus) for m in of(records, Measurement)] == [(208.0, 2)]


@pytest.mark.parametrize("line, ranks", [
    ("./build/all_reduce_perf -b 8 -e 1G -f 2 -g8", 8),  # the value glued to the flag
    ("./build/all_reduce_perf -b 8 -e 128M -g 8 -n 20", 8),  # the test's -n is 20 iterations, not ranks
    ("mpirun -np 2 ./build/all_reduce_perf -t 2 -g 2", 8),  # processes x threads x GPUs
    ("mpirun -n 16 -H a:8,b:8 ./build/all_reduce_perf -b 8 -e 8G -g 1", 16),  # mpirun's -n is processes
    ("srun --ntasks=16 ./build/all_reduce_perf -b 8 -e 1G", 16),
    ("./build/all_reduce_perf -b 8 -e 1G -f 2 -g 1", None),  # one rank: no collective across GPUs
])
def test_an_nccl_tests_command_gives_its_ranks(line, ranks):
    """nccl-tests README: -t threads per process and -g GPUs per thread, the launcher's -np/-n processes;
    the test's own -n is the iteration count."""
    assert issue_md._run_ranks(line) == ranks


@pytest.mark.parametrize("text", [
    "# speed on my 4090\n\nIs 60 tokens/s right for Mistral-7B in fp16 on one RTX 4090?\n",  # one short question
    "# TP2 latency\n\nDecode takes 31 ms per token with TP=2 on 2x L40S and 18 ms on one.\n",  # one short statement
    "# Is TP=4 supposed to be slower than TP=2?\n\n```\nvllm serve my-model -tp 4\n```\n",  # a title that asks
    "# Would two A10G beat one for a 3B model?\n\npython -m vllm.entrypoints.openai.api_server --model m -tp 2\n",
    "# nvlink p2p h100\n\nnvbandwidth between two H100 SXM shows 370 GB/s per direction. Should it be 450?\n",  # names
    "# H2D bandwidth\n\nbandwidthTest on an L40S shows 24 GB/s from host to device.\n",
])
def test_a_short_issue_is_an_issue(text):
    _, read = facts_of(text)
    assert read.kinds[:1] == ["issue_md"]


def test_a_commented_script_or_a_list_is_no_issue():
    script = "# run it\nexport NCCL_DEBUG=INFO\nmpirun -np 16 ./all_reduce_perf -b 8 -e 8G\n"
    assert "issue_md" not in [k for k, _ in detect(script)]
    listed = "# nodes?\nnode01 8\nnode02 8\n"  # a question mark, but a one-word title and no sentence
    assert "issue_md" not in [k for k, _ in detect(listed)]
    names = "# gpu0 gpu1\n0 260.89 259.10\n1 259.10 260.89\n"  # a title of names over a matrix, no sentence
    assert "issue_md" not in [k for k, _ in detect(names)]


@pytest.mark.parametrize("text,gpu,count,model", [
    ("# 速度问题\n\n用vLLM在两张A100上跑Qwen2-72B-Instruct，单请求输出大约20 tokens/s，正常吗？\n",
     "A100", 2, "Qwen2-72B"),
    ("# 推理慢\n\n我们在8卡H100上部署Llama-3-70B，速度不理想。\n", "H100", 8, "Llama-3-70B"),
    ("# 4090 问题\n\n四块RTX 4090跑Mistral-7B，为什么这么慢？\n", "4090", 4, "Mistral-7B"),  # the title names it
])
def test_names_and_counts_inside_chinese_prose_are_read(text, gpu, count, model):
    records, _ = facts_of(text)
    named = {k: v for w in of(records, Workload) for k, v in vars(w).items()
             if v and k in ("gpu", "gpu_count", "model")}
    assert named == {"gpu": gpu, "gpu_count": count, "model": model}


def test_a_chinese_card_count_without_a_gpu_name_is_a_count():
    records, _ = facts_of("# 多卡\n\n同一个模型用8卡推理比4卡还慢，这是为什么？\n")
    assert [w.gpu_count for w in of(records, Workload) if w.gpu_count] == [8]


@pytest.mark.parametrize("written,metric,value", [
    ("45 tokens per sec", "decode_tok_s", 45), ("45 tokens/second", "decode_tok_s", 45),
    ("about 45 tk/s", "decode_tok_s", 45), ("每秒45个token", "decode_tok_s", 45),
    ("45 token/s的速度", "decode_tok_s", 45), ("0.022 s/token", "itl_ms", 22),
])
def test_rates_and_latencies_as_people_write_them(written, metric, value):
    records, _ = facts_of(f"# speed\n\nLlama-2-7B on one RTX 3090 gives {written} for one request. Is that normal?\n")
    assert [(m.metric, m.value) for m in of(records, Measurement)] == [(metric, pytest.approx(value))]


@pytest.mark.parametrize("written", ["took 3 s per request", "45 words/s", "45 it/s in the progress bar"])
def test_no_token_rate_where_none_is_written(written):
    records, _ = facts_of(f"# speed\n\nLlama-2-7B on one RTX 3090: {written}. Is that normal?\n")
    # (prose31: "3 s per request" is a whole request's time, e2e_latency_ms, tests/test_prose31.py; no token rate)
    assert [m for m in of(records, Measurement) if m.metric != "e2e_latency_ms"] == []


@pytest.mark.parametrize("tag,key", [
    ("llama3.1:70b", "llama-3-70b"), ("qwen2.5:7b", "qwen2.5-7b"), ("gemma2:9b", "gemma-2-9b"),
    ("mixtral:8x7b", "mixtral-8x7b"), ("qwq:32b", "qwen2.5-32b"), ("Qwen3-30B-A3B", "qwen3-30b-a3b"),
])
def test_models_named_as_ollama_tags_and_moe_names_resolve(tag, key):
    from diagnose.evidence import Facts
    from rules.subject import Subject

    records, _ = facts_of(f"# decode speed\n\nollama run {tag} on one RTX 4090 gives 30 tokens/s. Is that normal?\n")
    facts = Facts()
    facts.add(*records)
    assert Subject.of(facts).model.key == key


@pytest.mark.parametrize("text,recognised", [
    # a one-word title over one sentence that names a model or GPU and a figure: a report
    ("# slow\nMistral-7B on 2x L40S with vLLM TP=2, one request gets 30 tokens/s. Is that expected?\n", True),
    ("# perf\nServing Llama-3-8B on an H100 PCIe with vLLM. ITL is 9 ms. Normal?\n", True),
    # a one-word title over a sentence with no figure, or a figure with no model or GPU: not enough to be a report
    ("# notes\nWe have two H100 SXM nodes in the lab.\n", False),
    ("# todo\nrerun at 30 tokens/s later\n", False),
])
def test_a_short_issue_is_recognised_by_a_sentence_naming_a_system_and_a_figure(text, recognised):
    assert (issue_md.detect(text) > 0) is recognised


@pytest.mark.parametrize("line,value", [
    ("Across the two nodes over HDR InfiniBand the all_reduce busbw is 20 Gbyte/s", 20.0),
    ("On our RoCE link the bus bandwidth of all_reduce_perf is 11.5 GByte/s", 11.5),
    ("busbw reaches 24 Gbytes/s between the nodes with the ConnectX-6 NICs", 24.0),
])
def test_a_bandwidth_in_bytes_on_a_network_line_is_measured(line, value):
    """The bits test is text.is_bits: "Gbyte/s" beside an IB or RoCE word is bytes, a measurement."""
    records, _ = facts_of(f"# Slow between nodes\n\n{line}, is this expected?\n")
    assert [(m.metric, m.value) for m in of(records, Measurement)] == [("busbw_gbs", value)]


@pytest.mark.parametrize("unit", ["Gbit/s", "Gbps", "Gb/s"])
def test_a_bandwidth_in_bits_on_a_network_line_stays_the_link_rate(unit):
    records, _ = facts_of(f"# IB question\n\nThe HDR link is 200 {unit} and the bus bandwidth is 200 {unit}, why?\n")
    assert not of(records, Measurement)
