"""Issue 11 (session s33, pass review33): where the readings this session merged (bydesign33, physdoc33, errors33,
wrongcat33, figprec33) fired on the wrong evidence. Each fix is held to the real paste or sentence that showed the
misfire, to a near-miss that must still be read, and to the sentence the pass was written for (tests/data/precision33,
SOURCES.md; the other kept pastes named here are in their own folders)."""

from pathlib import Path

from conftest import report_json

from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement
from rules import claims
from rules.documented_behaviour import documented_behaviour_seen

DATA = Path(__file__).parent / "data"


def verdict(path: Path) -> str:
    return report_json("ticket", str(path))["verdict"]["category"]


def seen(tmp_path, text: str) -> str | None:
    """The by_design.toml row the reporter's words describe, or None."""
    (tmp_path / "issue.md").write_text(text)
    found = documented_behaviour_seen(read_bundle([tmp_path / "issue.md"]))
    return found[0]["key"] if found else None


def symptom(tmp_path, text: str) -> str | None:
    (tmp_path / "issue.md").write_text(text)
    return claims.symptom(read_bundle([tmp_path / "issue.md"]))


# --- known_error: the KV-cache refusal is the card's capacity, unless the ticket's own setting or a release made it

def test_a_memory_share_set_far_below_the_default_is_the_setting_not_the_card():
    # vllm-project/vllm#7028: gpu_memory_utilization=0.1 on a T4; settled as the user's setting (healthy31/SOURCES.md).
    # On main the row's expected_physics let the launch line's enforce_eager=True take the verdict (eager_mode).
    assert verdict(DATA / "healthy31" / "vllm7028.md") == "other"


def test_the_refusal_at_the_default_share_or_above_stays_the_cards_capacity():
    assert verdict(DATA / "memory_share" / "qwen3_12" / "issue.md") == "expected_physics"  # 0.95 on a 32 GB V100
    assert verdict(DATA / "physdoc33" / "catalog10.md") == "expected_physics"  # no share stated (Colab)
    assert verdict(DATA / "precision33" / "bonito7.md") == "expected_physics"  # one A10G, max seq len 32768


def test_weights_that_loaded_fine_before_the_refusal_are_no_earlier_release(tmp_path):
    message = ("ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be "
               "stored in KV cache (48000). Try increasing `gpu_memory_utilization` or decreasing `max_model_len`.")
    ticket = tmp_path / "t.md"
    ticket.write_text(f"# vLLM does not start\n\nOne RTX 4090, Llama-3.1-8B. The weights loaded fine, then:\n\n"
                      f"```\n{message}\n```\n")
    assert verdict(ticket) == "expected_physics"
    ticket.write_text(f"# vLLM does not start\n\nOne RTX 4090, Llama-3.1-8B. 0.4.2 started fine with the same "
                      f"settings; 0.5.0 says:\n\n```\n{message}\n```\n")
    assert verdict(ticket) == "other"


# --- by_design rows

def test_a_second_card_that_does_not_remain_idle_is_no_idle_card():
    # ollama/ollama#7104 (ut21b): "the second card does not remain idle waiting ..." in the reporter's idea of a split;
    # settled expected_physics (a layer split is no faster), read on main as Ollama's one-GPU placement (healthy)
    assert verdict(DATA / "ut21b" / "ollama7104.md") == "expected_physics"


def test_an_idle_second_card_is_still_ollamas_placement(tmp_path):
    assert seen(tmp_path, "# Ollama uses one GPU\n\nOllama with llama3 8b on my two RTX 3090 cards: the second GPU "
                          "stays idle the whole time.") == "ollama_one_gpu"
    assert seen(tmp_path, "# Ollama uses both GPUs\n\nOllama with llama3 8b on my two RTX 3090 cards: the second GPU "
                          "is never idle.") is None


def test_a_link_rate_is_no_memory_size(tmp_path):
    # tests/data/tickets/u206 (development), line 4: a per-link NVLink rate set against the spec
    assert seen(tmp_path, "# A100 NVLink\n\nOn our A100 GPUs, now I found the B/W per link is <20GB/s instead of "
                          "25GB.") is None


def test_memory_below_the_sold_size_only_within_what_ecc_and_units_explain(tmp_path):
    # the sentence the row was written for (bydesign33/nvforum_t4_15g.md) stays read
    assert seen(tmp_path, "# T4 memory\n\nNVIDIA officially states that T4 memory is 16GB, but I see about 15GB in "
                          "nvidia-smi.") == "memory_below_nameplate"
    # half the memory is not the ECC reserve (MIG, another process, a wrong board)
    assert seen(tmp_path, "# RTX 3090 memory\n\nThe card is rated 24GB but nvidia-smi only shows 12GB.") is None


def test_one_slot_keeps_the_whole_context(tmp_path):
    text = ("# llama-server context\n\nllama.cpp llama-server {flag} -c 8192: the context is only 2048 per request "
            "in the slot log.")
    assert seen(tmp_path, text.format(flag="-np 4")) == "llama_server_slots"
    assert seen(tmp_path, text.format(flag="-np 1")) is None


def test_the_keep_alive_unload_in_the_users_word_offload_is_healthy():
    # ollama/ollama#2490: "ollama will automatically be offloaded from GPU memory" after inactivity; keep_alive -1
    assert verdict(DATA / "precision33" / "ollama2490.md") == "healthy"


# --- claims

def test_stuck_a_second_time_is_a_hang_a_moment_is_not(tmp_path):
    assert symptom(tmp_path, "# vLLM\n\nvLLM TP=4 on 4x A100: the server got stuck a second time today, no output "
                             "for an hour.") == "hang"
    assert symptom(tmp_path, "# vLLM\n\nvLLM TP=4 on 4x A100: the generation stalls for a second when a long prompt "
                             "arrives.") != "hang"


def test_a_question_about_disabling_cuda_graphs_is_not_eager_mode(tmp_path):
    def eager(text):
        (tmp_path / "issue.md").write_text(text)
        return claims.find(read_bundle([tmp_path / "issue.md"]), "eager_flag")
    assert not eager("# vLLM\n\nvLLM TP=2 on 2x L40S. Would disabling CUDA graphs reduce memory?")
    assert not eager("# vLLM\n\nvLLM TP=2 on 2x L40S. Someone recommended disabling cuda graphs.")
    assert eager("# vLLM\n\nvLLM TP=2 on 2x L40S. I disabled CUDA graphs to save memory.")


def test_the_socket_lines_on_a_job_that_reaches_another_server_are_no_single_node_behaviour(tmp_path):
    lines = "NCCL INFO NET/IB : No device found. NCCL INFO NET/Socket : Using [0]eth0. Is this normal?"
    assert seen(tmp_path, f"# NCCL\n\nSingle node, 2x RTX 4090, vLLM TP=2. {lines}") == "nccl_single_node_socket"
    # the network transport carries the traffic between the servers: not the one-node information line
    assert seen(tmp_path, f"# NCCL\n\nWe use 2 GPUs on the same machine and 2 more on another server over Ray. "
                          f"{lines}") is None


def test_a_slow_nvidia_smi_with_persistence_on_in_its_own_table_is_no_missing_persistence(tmp_path):
    table = ("| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
             "|   0  NVIDIA A100-SXM4-80GB  {mode}   | 00000000:07:00.0 Off |                    0 |\n")
    text = "# nvidia-smi\n\nnvidia-smi takes 10 seconds to print when nothing is running.\n\n```\n{table}```\n"
    assert seen(tmp_path, text.format(table=table.format(mode="Off"))) == "nvidia_smi_persistence"
    assert seen(tmp_path, text.format(table=table.format(mode="On"))) is None


# figures.computed (figprec33): '2 x 4090 = 30 tok/s' is a GPU count and a model number beside a measured rate, not the
# reporter's arithmetic (8180 is no unit step from 30); real arithmetic (figprec33's own cases) stays computed
def test_a_gpu_count_times_a_model_number_is_no_arithmetic(tmp_path):
    (tmp_path / "issue.md").write_text("# A question\n\nvLLM on 2 x 4090 = 30 tok/s with Llama-2-13B at batch 1, "
                                       "TP=2. Is that normal?\n")
    assert [m.value for m in read_bundle([tmp_path / "issue.md"]).of(Measurement)] == [30.0]
    (tmp_path / "issue.md").write_text("# A question\n\nvLLM TP=2 on 2x A100 80GB with Llama-2-70B: 4 streams * "
                                       "12 tok/s = 48 tok/s in total. Is that normal?\n")
    assert 48.0 not in [m.value for m in read_bundle([tmp_path / "issue.md"]).of(Measurement)]


# --- serving_tradeoffs rows (physdoc33)

def tradeoffs(tmp_path, text: str) -> list[str]:
    (tmp_path / "issue.md").write_text(text)
    return [c.data["tradeoff"].id for c in claims.documented_tradeoffs(read_bundle([tmp_path / "issue.md"]))]


def test_the_context_window_row_wants_the_window_itself_raised(tmp_path):
    # the real sentence the row was written for (physdoc33/qwen3vl49.md) stays read
    assert "context_window_memory" in tradeoffs(tmp_path, (DATA / "physdoc33" / "qwen3vl49.md").read_text())
    # another setting raised, beside a --max-model-len in the sentence before
    assert "context_window_memory" not in tradeoffs(
        tmp_path, "# A question\n\nvLLM with --max-model-len 32768 on 4x A100. After increasing tensor parallel size "
                  "from 2 to 4 the decode got slower.")


def test_few_running_requests_beside_a_near_empty_kv_cache_are_no_capacity_limit(tmp_path):
    text = ("# A question\n\nvLLM on one A100 80GB, Llama-3-8B, --max-model-len 8192. Only 2 requests run at once{}.")
    assert "kv_cache_capacity" in tradeoffs(tmp_path, text.format(""))
    assert "kv_cache_capacity" not in tradeoffs(tmp_path, text.format(" although GPU KV cache usage is 5%"))
