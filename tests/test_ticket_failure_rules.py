"""The failure-category ticket rules: each fires on the evidence it names, stays silent without it
or where that evidence means something else (one node, a failure the category cannot cause, a fix),
and the verdict of real development cases follows them."""

import shutil
from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"
SPLIT = tomllib.loads((CORPUS / "SPLIT.toml").read_text())
NOT_STUDIED = set(SPLIT["holdout"]) | set(SPLIT.get("fresh", []))


def ticket(text: str):
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def fired(findings, rule_id):
    return [f for f in findings if f.rule == rule_id and f.severity != "ok"]


def test_nccl_on_sockets_between_nodes_is_socket_fallback():
    answer, findings = ticket("All-reduce across two nodes with 8 A100 each is very slow. NCCL_DEBUG=INFO prints "
                              "'NCCL INFO NET/IB : No device found.' on both hosts.")
    assert [f.category for f in fired(findings, "ticket.net_socket")] == ["socket_fallback"]
    assert answer.category == "socket_fallback" and answer.confidence < 0.7  # words, not a parsed log


def test_the_socket_interface_line_on_one_node_is_routine():
    _, findings = ticket("Single server, 4 GPUs, the all-reduce is slow. The log shows NCCL INFO NET/Socket : Using "
                         "[0]eth0:10.1.1.2<0>.")
    assert not fired(findings, "ticket.net_socket")


def test_a_note_about_the_socket_line_on_one_node_is_no_fallback():
    # "Note"/"cannot" hold "not": only the words themselves say a fallback
    _, findings = ticket("One server with a ConnectX-6 RoCE card and 4 GPUs, decode is slow. Note: NCCL INFO Using "
                         "network Socket shows at start-up.")
    assert not fired(findings, "ticket.net_socket")


def test_a_release_change_that_fixed_it_is_not_a_regression():
    from rules import claims

    assert claims.fixed_by("switching to the newer NCCL build solved the stalls")
    _, findings = ticket("After upgrading NCCL the multi-node stalls went away.")
    assert not fired(findings, "ticket.nccl_upgrade")
    _, broke = ticket("After upgrading NCCL the multi-node all-reduce became much slower.")
    assert fired(broke, "ticket.nccl_upgrade")


def test_a_link_below_its_capability_is_a_degraded_link():
    answer, findings = ticket("TP=2 on two RTX 3090 is slower than one GPU. For GPU1 lspci shows "
                              "LnkSta: Speed 16GT/s (ok), Width x4 (downgraded).")
    assert answer.category == "pcie_link_degraded" and fired(findings, "ticket.pcie_words")


def test_a_lower_link_speed_alone_is_what_an_idle_gpu_does():
    # ASPM drops an idle GPU's link to 2.5 GT/s; without fewer lanes or a reading under load it is a weak lead
    idle = ("TP=2 on two RTX 3090 is slower than one GPU. lspci shows LnkSta: "
            "Speed 2.5GT/s (downgraded), Width x16 (ok).")
    (weak,) = fired(ticket(idle)[1], "ticket.pcie_words")
    loaded = "TP=2 is slower than one GPU. Under load GPU1 still runs at Gen1 instead of Gen4."
    (strong,) = fired(ticket(loaded)[1], "ticket.pcie_words")
    assert weak.confidence < strong.confidence
    _, hang = ticket("NCCL hangs on two RTX 3090. lspci shows LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok).")
    assert not fired(hang, "ticket.pcie_words")


def test_a_riser_is_a_weaker_prior_and_only_for_a_speed_complaint():
    _, slow = ticket("Tensor parallel inference on two GPUs is slower than on one. The second card is on a riser.")
    narrow = ("TP=2 on two RTX 3090 is slower than one GPU. lspci shows LnkSta: Speed 16GT/s (ok), "
              "Width x4 (downgraded).")
    (riser,), (seen,) = fired(slow, "ticket.pcie_words"), fired(ticket(narrow)[1], "ticket.pcie_words")
    assert riser.confidence < seen.confidence
    _, crash = ticket("vLLM crashes with an illegal memory access. The second card is on a riser.")
    assert not fired(crash, "ticket.pcie_words")


def test_cpu_binding_that_changes_the_speed_is_numa_affinity_not_for_a_hang():
    answer, findings = ticket("Decode on our dual-socket box is slow; binding each rank with numactl --cpunodebind "
                              "made it twice as fast.")
    assert answer.category == "numa_affinity" and fired(findings, "ticket.numa_words")
    _, hang = ticket("The job hangs at init; binding the ranks with numactl helped nothing and still hangs.")
    assert not fired(hang, "ticket.numa_words")


def test_an_nccl_upgrade_as_cause_and_as_cure():
    answer, findings = ticket("After upgrading NCCL the all-reduce on our 16 nodes is 30% slower.")
    assert answer.category == "nccl_regression" and fired(findings, "ticket.nccl_upgrade")
    _, cured = ticket("The job hung at the first all-reduce; after upgrading NCCL it works.")
    assert not fired(cured, "ticket.nccl_upgrade")


def test_a_saturated_host_core_is_host_bound_unless_the_engine_runs_on_the_cpu():
    answer, findings = ticket("vLLM on one H100 is slow: the engine process sits at 100% CPU and GPU utilization "
                              "is around 40%.")
    assert answer.category == "host_bound"
    assert len(fired(findings, "ticket.cpu_bound")[0].evidence) == 2  # the CPU load and the GPU idling meanwhile
    _, cpu_backend = ticket("Using the vLLM CPU backend, the CPU is at 100% and generation is slow.")
    assert not fired(cpu_backend, "ticket.cpu_bound")


def test_pasted_smi_output_with_every_reason_inactive_is_not_throttling():
    _, findings = ticket("Inference is slow on this A100.\n\n```\n    Clocks Event Reasons\n"
                         "        SW Power Cap                      : Not Active\n"
                         "        HW Slowdown                       : Not Active\n```")
    assert not fired(findings, "ticket.clock_power")


@pytest.mark.parametrize("prefix,label,rule", [
    ("u101", "socket_fallback", "nccl.socket_fallback"),   # NET/Socket on a cross-node all-reduce, IB expected
    ("u103", "shm_too_small", "ticket.shm_error"),         # posix_fallocate: No space left on device
    ("u105", "host_bound", "ticket.gpu_utilisation"),      # one GPU at 60 % under a large batch
    ("u107", "nccl_regression", "nccl.regression"),        # busbw per NCCL release, 57 -> 7 GB/s
    ("u109", "throttling", "ticket.clock_power"),          # SW Power Cap stuck active
])
def test_development_cases_of_these_categories(tmp_path, prefix, label, rule):
    (case,) = [p for p in CORPUS.iterdir() if p.name.startswith(prefix + "-")]
    assert case.name not in NOT_STUDIED
    copy = tmp_path / "t"
    shutil.copytree(case, copy, ignore=shutil.ignore_patterns("expected.toml"))
    facts = read_bundle([copy])
    findings = evaluate(facts)
    assert ticket_verdict(facts, findings).category == label
    assert any(f.rule == rule and f.category == label for f in findings)


def test_a_healthy_pasted_smi_query_is_no_hardware_fault():
    # a real `nvidia-smi -q` of a healthy RTX 4090: "Double Bit ECC : N/A", "Reset Required : No"
    smi = (Path(__file__).parent / "data" / "hardware" / "real" / "smi_q_rtx4090_x8_535.txt").read_text()
    facts = Facts()
    facts.add(Note("issue.md:1", "description", "Decode on this box is slower than I expected."))
    facts.add(Note("issue.md:5", "pasted_output", smi))
    findings = evaluate(facts)
    assert not fired(findings, "ticket.hardware_error")
    assert ticket_verdict(facts, findings).category != "hardware_fault"


def test_the_topo_p2p_legend_is_not_p2p_refused(tmp_path):
    matrix = (Path(__file__).parent / "data" / "hardware" / "real"
              / "topo_p2p_rw_2x_rtx5090_gns_spaces.txt").read_text()
    all_ok = matrix.replace("GNS     X", "OK      X").replace("X       GNS", "X       OK")
    verdicts = {}
    for name, table in (("ok", all_ok), ("gns", matrix)):
        answer, findings = issue(tmp_path / name, "# all_reduce_perf on two GPUs is slower than I expected\n\n"
                                 f"nvidia-smi topo -p2p r:\n\n```\n{table}\n```\n")
        verdicts[name] = answer.category
        if name == "ok":
            assert not fired(findings, "ticket.p2p_refused")  # the legend prints under every matrix
    assert verdicts["ok"] != "p2p_disabled" and verdicts["gns"] == "p2p_disabled"  # the GNS cells decide


def test_a_bus_error_outside_a_container_is_a_weak_shm_lead():
    _, bare = ticket("Loading the model on 2 GPUs crashes with Bus error (core dumped).")
    _, docker = ticket("Inside the docker container, loading the model on 2 GPUs crashes with Bus error (core dumped).")
    assert fired(bare, "ticket.shm_error")[0].confidence < fired(docker, "ticket.shm_error")[0].confidence


@pytest.mark.parametrize("complaint", [
    "# NCCL hangs at the first all-reduce on this node\n\nThe job never finishes.",
    "# Tensor parallel decode with vLLM on this node is slower than I expected\n\nWhat could be wrong?",
])
def test_links_that_are_up_do_not_make_a_complaint_healthy(tmp_path, complaint):
    # a real `nvidia-smi nvlink -s` of an A100 SXM4 with every link up: a state, not the figure complained of
    links = (Path(__file__).parent / "data" / "hardware" / "real" / "nvlink_s_a100_sxm4_x8.txt").read_text()
    (tmp_path / "issue.md").write_text(f"{complaint}\n\n```\n{links}\n```\n")
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    assert any(f.rule == "topology.nvlink_links" and f.severity == "ok" for f in findings)
    assert ticket_verdict(facts, findings).category != "healthy"


def test_two_level_step_times_on_one_gpu_are_a_clock_state_lead():
    answer, findings = ticket("Training is slow: the step time is bimodal, either 40 ms or 90 ms. It also happens "
                              "on a single GPU without NCCL.")
    (scoped,) = fired(findings, "ticket.clock_scope")
    assert answer.category == "throttling"
    _, alone = ticket("Training is slow: the step time is bimodal, either 40 ms or 90 ms.")
    (unscoped,) = fired(alone, "ticket.clock_scope")
    assert unscoped.confidence < scoped.confidence  # the single-GPU repro narrows it to the GPU itself
    _, steady = ticket("Training is slow: every step takes 90 ms on the 8 GPUs.")
    assert not fired(steady, "ticket.clock_scope")


def test_nccl_finding_no_hca_between_nodes_is_socket_fallback(tmp_path):
    # NCCL's own line, pasted without a fence: the log parser reads it, and no rule judged it alone before
    (tmp_path / "issue.md").write_text(
        "# Training across 2 nodes is slow\n\nWe run on 2 nodes with 8 A100 each, connected by InfiniBand. The log:\n\n"
        "gpu01:1111:2222 [0] NCCL INFO NET/IB : No device found.\n"
        "gpu01:1111:2222 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n")
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    assert fired(findings, "ticket.net_socket") and ticket_verdict(facts, findings).category == "socket_fallback"


def issue(tmp_path, text: str):
    """(verdict, findings) for an issue.md holding `text` in the folder tmp_path, read as the ticket command
    reads it."""
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def test_pcie_gpus_in_a_vm_with_a_speed_complaint_are_a_p2p_lead(tmp_path):
    (tmp_path / "vm").mkdir()
    answer, findings = issue(tmp_path / "vm", "# all_reduce_perf on our 4x A100 PCIe is slow\n\nThe GPUs are passed "
                             "through to a KVM virtual machine.")
    assert [f.category for f in fired(findings, "ticket.vm_pcie_slow")] == ["virtualization_no_p2p"]
    assert answer.category == "virtualization_no_p2p" and answer.confidence < 0.7  # a lead from words
    (tmp_path / "guess").mkdir()
    _, guess = issue(tmp_path / "guess", "# all_reduce_perf on our 4x A100 PCIe is slow\n\nCould the VM be the reason?")
    assert not fired(guess, "ticket.vm_pcie_slow")


def test_a_training_job_across_machines_is_not_called_a_model_served(tmp_path):
    (tmp_path / "train").mkdir()
    (tmp_path / "serve").mkdir()
    _, training = issue(tmp_path / "train", "# Slow across two servers\n\nFine-tuning with DeepSpeed ZeRO-3 across two "
                        "servers is very slow; each step takes 40 s.\n")
    assert not [f for f in training if f.rule == "ticket.symptom_prior" and f.category == "cross_node_tp"]
    _, serving = issue(tmp_path / "serve", "# Slow across two servers\n\nServing Qwen2-72B with DeepSpeed-MII across "
                       "two servers is very slow, about 3 tokens/s.\n")
    assert [f for f in serving if f.rule == "ticket.symptom_prior" and f.category == "cross_node_tp"]


def test_an_nccl_system_error_in_a_container_points_at_dev_shm_only_on_one_node():
    text = ("vLLM with --tensor-parallel-size 2 inside the docker container fails at start-up: "
            "torch.distributed.DistBackendError: NCCL error: unhandled system error, NCCL version 2.21.5")
    answer, findings = ticket(text)
    (lead,) = fired(findings, "ticket.system_error_in_container")
    assert answer.category == "shm_too_small" and lead.confidence < 0.7  # a lead, below the segment error itself
    assert not fired(ticket(text.replace("inside the docker container ", ""))[1], "ticket.system_error_in_container")
    _, between = ticket(text.replace("fails at start-up", "across two nodes fails at start-up"))
    assert not fired(between, "ticket.system_error_in_container")  # between nodes the network is as likely


@pytest.mark.parametrize("text,fires", [
    ("Can I serve my fine-tuned model with --tensor-parallel-size 6 on six GPUs? It refuses to start.", True),
    ("lmdeploy 部署这种模型，张量并行使用3或者6这种，是否建议？", True),
    ("Serving our model with tensor parallel 3 works, but decode is slower than I expected.", False),  # it loaded
    ("Serving our model with tensor parallel 4 fails to start.", False),
])
def test_a_tp_size_of_three_is_a_heads_lead_while_the_heads_are_unknown(text, fires):
    assert bool(fired(ticket(text)[1], "ticket.tp_size_uneven")) is fires


@pytest.mark.parametrize("tp", [3, 6])
def test_the_tp_lead_counts_the_catalogs_query_and_kv_heads(tp):
    from rules.catalog import models

    specs = models().values()
    text = f"Can I serve my fine-tuned model with --tensor-parallel-size {tp}? It refuses to start."
    (lead,) = fired(ticket(text)[1], "ticket.tp_size_uneven")
    counted = next(e for e in lead.evidence if e.source == "rules/catalog/models.toml")
    assert counted.expected == len(specs) and counted.measured < len(specs) / 10  # almost no model splits
    mixtral = models()["mixtral-8x22b"]
    assert mixtral.heads % tp == 0 and mixtral.kv_heads % tp  # query heads divide, its 8 KV heads do not
    assert mixtral.name in lead.summary and "KV heads" in lead.summary
    assert "2^k" not in lead.summary and "28, 40, 52" not in (lead.summary + lead.title)


def test_a_model_whose_heads_are_known_is_judged_exactly_not_by_the_lead(tmp_path):
    (tmp_path / "issue.md").write_text("# TP=6 refuses to start\n\n"
                                       "We want to serve Llama-3-70B with --tensor-parallel-size 6 "
                                       "on six A100 GPUs, but the server refuses to start.\n")
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    assert not fired(findings, "ticket.tp_size_uneven")
    assert fired(findings, "workload.tp_not_dividing_heads")  # 64 heads over 6 GPUs, from the catalog


def test_an_active_power_cap_below_an_inactive_line_is_throttling_and_explains_the_slow_gpu(tmp_path):
    # the line above ("Idle : Not Active") does not negate this one; with no POWER section health.throttling
    # cannot weigh the cap, so the pasted reason itself is the evidence, and it explains the one slow GPU
    block = ("    Clocks Event Reasons\n        Idle                              : Not Active\n"
             "        SW Power Cap                      : {}\n        HW Slowdown                       : Not Active\n")
    verdicts = {state: issue(tmp_path / state.replace(" ", "_"), "# One GPU slower than the others\n\nnvidia-smi -q -d "
                             f"PERFORMANCE on GPU3 shows:\n\n```\n{block.format(state)}```\n")[0].category
                for state in ("Active", "Not Active")}
    assert verdicts == {"Active": "throttling", "Not Active": "straggler"}


def test_several_sockets_and_unbound_workers_are_a_numa_lead_for_a_speed_complaint():
    text = ("Serving on GPUs 4-7 of our dual socket Xeon box gives 30% lower throughput than on GPUs 0-3. The server "
            "is started without any numactl binding.")
    answer, findings = ticket(text)
    (lead,) = fired(findings, "ticket.numa_words")
    assert answer.category == "numa_affinity" and lead.confidence < 0.5  # a configuration prior, no observation
    assert not fired(ticket(text.replace("dual socket ", ""))[1], "ticket.numa_words")
    assert not fired(ticket(text.replace("without any numactl binding", "with numactl --cpunodebind per GPU"))[1],
                     "ticket.numa_words")


def test_a_single_gpu_said_to_idle_is_a_host_lead_and_several_gpus_are_not(tmp_path):
    answer, findings = ticket("Serving Llama-3-8B with vLLM on one L4, the GPU utilization is very low and the "
                              "throughput does not grow with more users.")
    assert answer.category == "host_bound" and fired(findings, "ticket.gpu_utilisation")
    _, tp = issue(tmp_path, "# Low GPU utilization\n\nServing Llama-3-70B with vLLM on 4x A100 with tensor parallel 4, "
                  "the GPU utilization is very low.\n")
    assert [f.category for f in fired(tp, "ticket.gpu_utilisation")] == ["expected_physics"]  # ranks wait on each other
    _, busy = ticket("Serving Llama-3-8B with vLLM on one L4, the GPU utilization is not low but decode is slow.")
    assert not fired(busy, "ticket.gpu_utilisation")


def test_what_the_reporter_read_is_hearsay_not_a_launch_observation():
    _, read = ticket("How do I enable CUDA graphs in my own decode loop? I read that kernel launch overhead matters "
                     "for small batches.")
    assert not fired(read, "ticket.launch_overhead")
    _, seen = ticket("Decode of our small model is slow: the profile shows kernel launch overhead in every step.")
    assert fired(seen, "ticket.launch_overhead")
