"""A post hard-wrapped at a fixed width is still its author's sentences: a paragraph whose lines break mid-sentence
is read as prose when the paragraph ends as a sentence does. Real wrapped text from a thread the corpus does not hold,
and negations (a pasted table, a wrapped fragment that never ends a sentence, cut marks alone)."""

from diagnose.artifacts import parse_text
from diagnose.artifacts.issue_md import detect_named

# olafkfreund/nixos_config#1395 (https://github.com/olafkfreund/nixos_config/pull/1395), its description as written,
# wrapped at about 78 columns.
WRAPPED = """p510 hard-power-cut three times on 19/20 Aug 2026. dmidecode -t 39 reports a
490W supply against a 135W Xeon E5-2698 v4, a 290W-limit RTX 3070 Ti and a
170W-limit RTX 3060 — ~695W if both cards ramp together. No MCE, panic, OOM
or thermal event in any of the three; the journal just stops mid-write, and
p620 stayed up throughout, so it is not mains.

All three crashes coincide with GPU load, two of them with an ollama model
load specifically: 08:53:01 was six seconds after llama-server began loading,
and 09:30:59 followed tensor loading that started at 09:28:43.
"""


def test_a_hard_wrapped_post_is_prose():
    assert detect_named(WRAPPED, "issue.md") == 0.9
    _, read = parse_text(WRAPPED, "issue.md")
    assert read.kinds[:1] == ["issue_md"]


def test_cut_marks_around_a_wrapped_paragraph_do_not_count_against_it():
    text = "...\n\n" + WRAPPED.split("\n\n")[1] + "\n...\n"
    assert detect_named(text, "notes.txt") == 0.9


def test_a_wrapped_fragment_that_never_ends_a_sentence_is_not_prose():
    fragment = ("the journal just stops mid-write and the box stayed up throughout the run\n"
                "while the other machine kept serving requests from the same model all day\n")
    assert detect_named(fragment, "issue.md") == 0.0


def test_a_pasted_table_is_not_prose():
    table = ("| GPU  Name        Persistence-M | Bus-Id        Disp.A |\n"
             "|   0  NVIDIA GeForce RTX 4090        Off | 00000000:01:00.0 Off |\n"
             "|   1  NVIDIA GeForce RTX 4090        Off | 00000000:03:00.0 Off |\n")
    assert detect_named(table, "smi.txt") == 0.0


def test_cut_marks_alone_are_not_prose():
    assert detect_named("...\n\n…\n", "issue.md") == 0.0


def test_a_hard_wrapped_description_is_read_as_prose():
    """https://reviews.llvm.org/D80649 (the author's description, wrapped at a fixed width in the review tool): every
    paragraph runs its sentences across lines and ends on a short tail ("memcpy, like CUDA."); read as the author's
    prose. (A forum post wrapped so, ending on one word, "configurations.", is u19c06 in the corpus test above.)"""
    text = ("In current implementation, D2D memcpy is first to copy data back to host and then\n"
            "copy from host to device. This is very efficient if the device supports D2D\n"
            "memcpy, like CUDA.\n\n"
            "In this patch, D2D memcpy will first try to use native supported driver API. If\n"
            "it fails, fall back to original way.\n")
    assert detect_named(text, "notes.txt") > 0


def test_a_wrapped_tool_warning_pasted_alone_is_no_prose():
    """Open MPI's openib warning as pasted in NVIDIA/nccl-tests (u19a05's fenced output, here unfenced and alone): its
    one wrapped paragraph ends on a one-word tail ("device."), but the banner, the field lines and the NOTE around it
    are printed lines, so the file keeps its own kind."""
    text = ("[ngc1:24205] WARNING: local probe returned unhandled shell:unknown assuming bash\n"
            "--------------------------------------------------------------------------\n"
            "WARNING: No preset parameters were found for the device that Open MPI\ndetected:\n\n"
            "  Local host:            ngc2\n  Device name:           mlx5_1\n  Device vendor ID:      0x02c9\n"
            "  Device vendor part ID: 4123\n\n"
            "Default device parameters will be used, which may result in lower\n"
            "performance.  You can edit any of the files specified by the\n"
            "btl_openib_device_param_files MCA parameter to set values for your\ndevice.\n\n"
            "NOTE: You can turn off this warning by setting the MCA parameter\n"
            "      btl_openib_warn_no_device_params_found to 0.\n"
            "--------------------------------------------------------------------------\n")
    assert detect_named(text, "notes.txt") == 0.0


def test_a_wrapped_paragraph_ending_in_a_short_tail_above_version_lines_is_prose():
    # (r49a) lines under three words are an issue form's short answers ("vllm 0.5.4"), but a paragraph's one-word
    # tail ("machines.") still ends its wrapped sentence
    text = ("Llama-3-70B on 8x H100 SXM with vLLM tensor parallel 8 gives about 25 tokens/s for a\n"
            "single request and I wonder whether that is what everyone else sees on these\n"
            "machines.\n\nvllm 0.5.4\ntorch 2.4.0\ndriver 550.90\n")
    assert detect_named(text, "issue.md") == 0.9
