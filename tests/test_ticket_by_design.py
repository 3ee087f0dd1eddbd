"""Behaviour by design read from the reporter's words (issue 11 r): one GPU doing the work when the model fits
one, an idle GPU's power state, and the question forms and 'is this normal?' words of the languages these
threads are written in.

The sentences are written for these tests, several wordings each, none copied from a corpus case; the real
cases used are development cases (tests never open the holdout or fresh parts).
"""

import pytest
from test_ticket_questions import answer, development_case, said

from diagnose.evidence import Workload
from rules import claims
from rules.gpus_in_use import one_gpu_in_use
from rules.ticket_questions import idle_reading

# --------------------------------------------------------------------------- one GPU in use


@pytest.mark.parametrize("text", [
    "There are four A100 cards in the box, but the server only uses one GPU.",
    "With 2x 3090 installed, only one of the GPUs is busy according to nvidia-smi.",
    "The other three cards stay idle the whole time.",
    "机器上有两张4090，但是只用了一张卡。",
    "GPUは2枚あるのに1枚しか使われていません。",
    "GPU가 두 개인데 하나만 사용됩니다.",
    "Ich habe zwei Karten, aber nur eine GPU wird genutzt.",
    "У меня две видеокарты, но используется только одна видеокарта.",
    "Tengo dos tarjetas pero solo usa una GPU.",
])
def test_one_gpu_in_use_is_read_in_many_wordings(text):
    assert one_gpu_in_use(said(text)) is not None


@pytest.mark.parametrize("text", [
    "Since the update it no longer only uses one GPU.",          # ruled out
    "Is only one GPU used when the model fits?",                 # a question, not an observation
    "Someone suggested that it only uses one GPU by default.",   # a suggestion someone else made
    "If only one GPU is used, the others should be free for a second model.",  # a condition
    "Only one GPU is busy at a time, the others wait for it.",   # GPUs taking turns: a layer split
    "Both GPUs are used.",                                        # not the claim at all
])
def test_one_gpu_in_use_rejects_negations_questions_advice_and_turns(text):
    assert one_gpu_in_use(said(text)) is None


def ticket(tmp_path, text: str):
    """The verdict and findings of an issue.md holding `text` under a title, read as `diagnose ticket` reads it
    (the GPU count is the issue parser's)."""
    from diagnose.bundle import read_bundle
    from rules.engine import evaluate, ticket_verdict

    (tmp_path / "issue.md").write_text(f"# Question about GPU use\n\n{text}\n")
    facts = read_bundle([tmp_path / "issue.md"])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def by_design(findings) -> bool:
    return any(f.rule == "ticket.one_gpu_by_design" for f in findings)


@pytest.mark.parametrize("text", [
    "I have four A100 GPUs in this server, but only one GPU is used.",
    "There are 2x RTX 3090 in the box and the server only uses one of the GPUs.",
    "GPUは2枚あるのに1枚しか使われていません。",
    "GPU가 두 개인데 하나만 사용됩니다.",
    "Ich habe zwei Karten, aber nur eine GPU wird genutzt.",
    "Tengo dos tarjetas pero solo usa una GPU.",
    "We have multiple GPUs but only one GPU is busy.",
])
def test_several_gpus_counted_with_one_in_use_is_by_design(tmp_path, text):
    assert by_design(ticket(tmp_path, text)[1])


@pytest.mark.parametrize("text", [
    # (review of issue 11 r) the number counts something else, or the "several" is not GPUs
    "I have four A100 GPUs. The tokenizer only uses one CPU core.",
    "I have four A100 GPUs. vLLM only uses 1 GB on each of them.",
    "My four A100 GPUs are fine, but the loader only uses a single thread.",
    "I have one RTX 4090 generating 1024x1024 images, and only one GPU is used.",
    "With 1x A100 at 512x512, only one GPU is used.",
    "Tengo varias preguntas: solo usa una GPU.",
    "画像を2枚処理しますが、1枚のGPUしか使われていません。",
    "요청 2개를 보내도 GPU 하나만 사용됩니다.",
    "I have four A100 GPUs and all four are used.",  # negation: nothing left idle
])
def test_one_gpu_by_design_needs_several_gpus_and_a_gpu_left_idle(tmp_path, text):
    assert not by_design(ticket(tmp_path, text)[1])


def test_several_gpus_with_one_in_use_and_nothing_else_is_healthy_by_design(tmp_path):
    verdict, findings = ticket(tmp_path, "I have four A100 GPUs in this server, but only one GPU is used.")
    assert verdict.category == "healthy"
    assert verdict.confidence < 0.7  # rests on the absence of a fault: never a confident answer
    (f,) = [f for f in findings if f.rule == "ticket.one_gpu_by_design" and f.category == "healthy"]
    assert "Not known: whether the model fits" in f.summary  # no model named: the fit is not claimed
    assert "attach the model" in verdict.summary  # and the ticket is asked for it


@pytest.mark.parametrize("text", [
    "I have four A100 GPUs, but only one GPU is used and generation is very slow.",  # a complaint beside it
    "I have four A100 GPUs, but only one GPU is used, then it hangs.",               # a failure
    "I have four A100 GPUs; with NCCL_P2P_DISABLE=1 only one GPU is used.",          # a transport switched off
    "I have one A100 and only one GPU is used.",                                       # nothing else to use
])
def test_one_gpu_by_design_stays_silent_beside_a_fault_or_with_one_gpu(text):
    _, findings = answer(text)
    assert not [f for f in findings if f.rule == "ticket.one_gpu_by_design"]


def test_one_gpu_in_use_with_sharding_asked_for_is_not_by_design():
    _, findings = answer("I have four A100 GPUs, but only one GPU is used.",
                         Workload("launch.txt:1", framework="vllm", tp=4))
    assert not [f for f in findings if f.rule == "ticket.one_gpu_by_design"]


def test_real_case_ollama_one_gpu_of_four(tmp_path):
    facts = development_case(tmp_path, "u8b01")
    from rules.engine import evaluate, ticket_verdict

    findings = evaluate(facts)
    assert [f for f in findings if f.rule == "ticket.one_gpu_by_design"]
    assert ticket_verdict(facts, findings).category == "healthy"


def test_real_case_split_70b_with_a_speed_complaint_is_not_one_gpu_by_design(tmp_path):
    # 'only uses one GPU out of four, and the speed ... is not satisfactory': a split model, not a placement
    facts = development_case(tmp_path, "u6a06")
    from rules.engine import evaluate

    assert not [f for f in evaluate(facts) if f.rule == "ticket.one_gpu_by_design"]


# --------------------------------------------------------------------------- an idle GPU's state


@pytest.mark.parametrize("text", [
    "When idle, nvidia-smi shows P0 and 60W / 300W on every card.",
    "The card idles at P2, drawing 25W / 250W.",
    "Between requests the clocks stay at 1410 MHz.",
    "空闲时显卡一直停在P2状态。",
    "アイドル時もP2のままです。",
    "유휴 상태에서도 P2로 유지됩니다.",
    "Im Leerlauf bleibt die Karte in P2.",
    "В простое карта остаётся в P2.",
    "En reposo la GPU se queda en P2.",
])
def test_idle_readings_are_read_in_many_wordings(text):
    assert idle_reading(said(text)) is not None


@pytest.mark.parametrize("text", [
    "It is not idle: P2 at 280W / 300W while training.",  # ruled out
    "Does the GPU stay at P2 when idle?",                  # a question
    "If it were idle it would drop to P8.",                # a condition
    "The GPU sits at P2 under load.",                      # not idle
])
def test_idle_readings_reject_negations_questions_and_load(text):
    assert idle_reading(said(text)) is None


@pytest.mark.parametrize("draw", ["38W / 140W", "38/140W", "38 W/140 W", "38 / 140 W"])
def test_idle_p_state_with_low_draw_is_healthy(draw):
    verdict, findings = answer(f"nvidia-smi shows the GPU idling at P2 while the server waits, {draw}.")
    assert verdict.category == "healthy" and verdict.confidence < 0.7
    (f,) = [f for f in findings if f.rule == "ticket.idle_reading"]
    assert any(e.measured == 38 and e.expected == 140 and e.unit == "W" for e in f.evidence)  # said and compared


@pytest.mark.parametrize("text", [
    "The GPU idles at P2, and the first request after a pause is very slow.",  # a complaint
    "The GPU is idling at P0 with 280W / 300W drawn.",                          # most of the limit: busy
    "The GPU is idling at P0 with 280/300W.",                                   # the same, written as nvidia-smi does
    "Idle, the card reads P0 and 280 W/300 W.",
    "Idling at P2, then it crashes with an Xid error.",                         # a failure
])
def test_idle_reading_gives_way_to_a_complaint_a_high_draw_or_a_fault(text):
    _, findings = answer(text)
    assert not [f for f in findings if f.rule == "ticket.idle_reading"]


@pytest.mark.parametrize("text", [
    "When idle the card stays at P2. During a training run it draws 290W / 300W.",
    "Idling, it sits at P2. Under load it reaches 250/300W, as it should.",
])
def test_a_draw_under_load_in_another_sentence_is_not_the_idle_draw(text):
    (f,) = [f for f in answer(text)[1] if f.rule == "ticket.idle_reading"]
    assert not [e for e in f.evidence if e.unit == "W"]


def test_real_case_tgi_idling_at_p2(tmp_path):
    facts = development_case(tmp_path, "u8b09")
    from rules.engine import evaluate, ticket_verdict

    findings = evaluate(facts)
    (f,) = [f for f in findings if f.rule == "ticket.idle_reading"]
    assert any(e.measured == 38 and e.expected == 140 for e in f.evidence)  # its "38/140W", read
    assert ticket_verdict(facts, findings).category == "healthy"


# --------------------------------------------------------------------------- question forms and 'normal?'


@pytest.mark.parametrize("text", [
    "Any idea why the second card is slower",
    "Should I expect more from two cards?",
    "二枚目のGPUが遅いのはなぜ",
    "この速度は正常ですか",
    "속도를 높일 방법이 있을까요",
    "Почему вторая карта простаивает",
    "Warum ist die zweite GPU im Leerlauf",
    "Gibt es eine Möglichkeit, beide Karten zu nutzen",
    "Por qué la segunda GPU no se usa",
    "Hay alguna forma de usar las dos tarjetas",
])
def test_questions_in_many_languages_are_questions(text):
    assert claims.asks(said(text))


@pytest.mark.parametrize("text", [
    "What is the issue?\n\nI have two GPUs and the second one is never used.",
    "### What happened?\n\nThe model loads on GPU 0.",
    "Describe the bug\n\nThe second GPU stays idle.",
])
def test_an_issue_templates_headings_are_not_the_reporters_question(text):
    assert claims.asks(said(text)) is None


@pytest.mark.parametrize("text", [
    "このくらいの速度は正常ですか",
    "이 속도가 정상인가요",
    "Это нормально, что вторая карта простаивает",
    "Ist das bei zwei Karten zu erwarten",
    "Es lo esperado con dos tarjetas",
])
def test_normal_question_words_in_many_languages(text):
    assert claims.symptom(said(text)) == "normal?"


@pytest.mark.parametrize("text", [
    "Это ненормально: карта простаивает.",       # called abnormal: a complaint, not the question
    "Скорость неожиданно упала.",                # 'unexpectedly': not 'expected'
    "このGPUは2枚あります。",                     # no question word at all
])
def test_abnormal_or_unrelated_words_are_not_the_normal_question(text):
    assert claims.symptom(said(text)) != "normal?"


@pytest.mark.parametrize("text, kind", [
    ("I have multiple GPUs, but I cannot use them all.", None),
    ("We can't use both GPUs at once.", None),
    ("I cannot load the model on the second GPU.", "error"),  # a failure stays a failure
])
def test_gpus_left_unused_are_not_an_error(text, kind):
    found = claims.symptom(said(text))
    assert (found == "error") == (kind == "error")


# --------------------------------------------------------------------------- one GPU model against another


@pytest.mark.parametrize("text", [
    "Why does the 4090 answer five times faster than the V100?",
    "The A10 is much slower than the A100, is that normal?",
    "为什么 4090 比 V100 快这么多",
    "T4 is slower than A100 for the same prompt.",
    "T4 compared to A100 is slower on the same prompt.",
    "A100 相比 V100 快很多",
])
def test_a_board_behind_on_both_datasheet_figures_is_slower_by_design(text):
    verdict, findings = answer(text)
    assert verdict.category == "expected_physics" and verdict.confidence < 0.7
    (f,) = [f for f in findings if f.rule == "ticket.gpus_compared"]
    # each figure says where it came from and what it was set against
    assert {e.unit for e in f.evidence if e.measured is not None} == {"GB/s", "TFLOPS"}
    assert all(e.measured < e.expected for e in f.evidence if e.measured is not None)


@pytest.mark.parametrize("text", [
    "The H100 is slower than the A800 in our training job.",   # the stronger board behind: not physics
    "We run the 4090 and the V100 side by side.",              # no comparison said
    "I think the V100 is slower than the 4090, not measured.",  # a guess, not an observation
    "The V100 is slower than the 4090 and then it hangs.",     # a failure
    # (review of issue 11 r) the comparative belongs to the next clause, about the stronger board
    "We compared A100 vs H100 and the H100 is slower than expected.",
    "A100 versus H100, but the H100 is the slower one in our runs.",
    "We ran the T4 against the A100 while the A100 was slower than the docs say.",
])
def test_gpu_comparison_stays_silent_when_the_datasheets_do_not_explain_it(text):
    _, findings = answer(text)
    assert not [f for f in findings if f.rule == "ticket.gpus_compared"]


@pytest.mark.parametrize("text", [
    "The T4 is not faster than the A100 on the same prompt.",   # a negated comparative still says which is behind
    "Is it normal that the A10 isn't quicker than the A100 here?",
])
def test_a_negated_comparison_keeps_its_direction(text):
    verdict, findings = answer(text)
    assert verdict.category == "expected_physics"
    assert [f for f in findings if f.rule == "ticket.gpus_compared"]
    assert not [f for f in findings if f.rule == "ticket.stronger_gpu_slower"]


@pytest.mark.parametrize("text", [
    # an expectation the run did not meet: the board expected ahead came out behind; both boards of one architecture,
    # or the stronger one the older (newarch35: a newer architecture behind leads to its build, test_newarch35.py)
    "The A100 should be better than the A6000, but our decode is slower on it.",
    "按理说 A100 应该比 A10 快，但实际测下来更慢。",
    "The L40S should not be slower than the L4, but it is.",
    # said outright
    "The L40S is slower than the L4 in our training job.",
    # a newer architecture behind, with the host shown at its limit: the host lead stays
    "Our A100 is slower than the old V100 box at batch 1, same script; one CPU core sits at 100 % throughout.",
])
def test_the_stronger_board_behind_is_not_the_gpus_limit(text):
    verdict, findings = answer(text)
    (f,) = [f for f in findings if f.rule == "ticket.stronger_gpu_slower"]
    assert not [g for g in findings if g.rule in ("ticket.gpus_compared", "ticket.newer_arch_behind")]
    assert verdict.category == "host_bound" and f.confidence < 0.5 and verdict.confidence < 0.7  # a lead; the
    # verdict states its class's development level, never confident (rules/catalog/verdict_confidence.toml)
    # the stronger board's figures are the measured side and lead the other's
    assert all(e.measured > e.expected for e in f.evidence if e.measured is not None)


@pytest.mark.parametrize("text", [
    "The H100 should be faster than the A100 and it hangs after an hour.",   # a failure decides
    "I think the H100 is slower than the A100, not measured yet.",          # a guess
    "The A10 should be slower than the A100, why?",                          # the weaker board expected behind
])
def test_the_stronger_board_lead_stays_silent_without_an_observed_reversal(text):
    _, findings = answer(text)
    assert not [f for f in findings if f.rule == "ticket.stronger_gpu_slower"]


# --------------------------------------------------------------------------- one request against several


@pytest.mark.parametrize("text", [
    "With one request I get 40 tok/s; with four concurrent requests the total is 150 tok/s.",
    "A single user sees 35 tokens/s, 8 users see 200 tokens/s in total, why?",
    "单个请求 30 tokens/s，两个请求 60 tokens/s，为什么单个请求不能更快",
    "When I have one request the log shows 70 tokens/s; when I have two requests it shows 140 tokens/s, so why can't "
    "one request reach 140?",
])
def test_a_total_that_grows_with_requests_is_the_batchs_trade(text):
    verdict, findings = answer(text)
    assert verdict.category == "expected_physics" and verdict.confidence < 0.7
    (f,) = [f for f in findings if f.rule == "ticket.concurrency_rates"]
    (figure,) = [e for e in f.evidence if e.measured is not None]
    assert figure.measured > figure.expected and figure.unit == "tok/s"


@pytest.mark.parametrize("text", [
    "With one request I get 40 tok/s; with four requests each gets 38 tok/s.",  # per-request rates, not totals
    "With one request 40 tok/s and with two requests 41 tok/s.",                # no gain to explain
    "With one request 40 tok/s, with two requests 120 tok/s, then NCCL hangs.",  # a failure
])
def test_concurrency_rates_need_a_grown_total_and_no_fault(text):
    _, findings = answer(text)
    assert not [f for f in findings if f.rule == "ticket.concurrency_rates"]


@pytest.mark.parametrize("text, kind", [
    ("Why can't one request reach the batch's rate?", None),
    ("Why can't 'TPS' be the maximum for a single user?", None),
    ("One stream cannot achieve the throughput of the whole batch.", None),   # no "why": the same speed out of reach
    ("Why can a single request not be as fast as eight?", None),
    ("So why can't one request reach 140?", None),
    ("It can't load the model on two GPUs.", "error"),
    # a "why" in front does not turn a failure into a question about speed (review of issue 11 r)
    ("Why can't vLLM load the model on my H100?", "error"),
    ("Why can't the server start on my two GPUs?", "error"),
    ("Why does the engine fail to start on the second node?", "error"),
    ("Why cannot the second GPU be used?", "error"),  # as "cannot use the second GPU": one device out of reach
    ("The model cannot be loaded, why?", "error"),
    ("I can't get the model to load.", "error"),
    ("Why can't I get the model to load on 2 GPUs?", "error"),
])
def test_why_cant_asks_about_capability_not_a_failure(text, kind):
    assert (claims.symptom(said(text)) == "error") == (kind == "error")


def test_a_failure_asked_about_with_why_is_no_healthy_system():
    verdict, findings = answer("Why can't vLLM load the model on my H100?")
    assert verdict.category != "healthy"
    assert not [f for f in findings if f.rule == "ticket.nothing_broken"]


# --------------------------------------------------------------------------- warm-up, in the threads' languages


@pytest.mark.parametrize("text", [
    "第一次推理很慢，之后就正常了，这正常吗？",
    "最初の推論だけ遅く、その後は速いです。",
    "첫 번째 추론만 느리고 이후에는 빠릅니다.",
    "Der erste Aufruf dauert 5 s, danach 50 ms.",
    "Первый запрос очень медленный, потом всё быстро.",
    "La primera inferencia es lenta y luego es rápida.",
])
def test_only_the_first_call_slow_is_warm_up_in_many_languages(text):
    assert claims.find(said(text), "first_calls_slow")
    verdict, _ = answer(text)
    assert verdict.category == "healthy" and verdict.confidence < 0.7


@pytest.mark.parametrize("text", [
    "第一次推理不慢，但之后越来越慢",
    "最初の推論は遅くないです。",
    "첫 번째 추론은 느리지 않습니다.",
    "Der erste Aufruf ist nicht langsam.",
    "Первый запрос не медленный.",
    "La primera inferencia no es lenta.",
])
def test_a_first_call_said_not_slow_is_no_warm_up(text):
    assert not claims.find(said(text), "first_calls_slow")


@pytest.mark.parametrize("text", [
    # (review of issue 11 r) a first use or deployment, slow ever since: no work named that warms up
    "首次部署后推理速度很慢",
    "처음 사용해보는데 너무 느려요",
    "第一次用这个框架，速度很慢",
    "最初から遅いです",
    # the first call slow and the rest too: no warm-up
    "Der erste Aufruf ist langsam, alle weiteren auch.",
    "The first call is slow, and all later ones too.",
    "The first request is slow, as is every request after it.",
    "第一次推理很慢，之后也很慢",
    "Первый запрос медленный, и все последующие тоже.",
    "La primera inferencia es lenta y las siguientes también.",
])
def test_a_first_use_or_every_call_slow_is_no_warm_up(text):
    assert not claims.find(said(text), "first_calls_slow")
    assert answer(text)[0].category != "healthy"


# --------------------------------------------------------------------------- more GPUs, no speed-up, in other languages


@pytest.mark.parametrize("text", [
    "2枚のGPUにしても速くならないです",
    "GPU 두 개로 해도 빨라지지 않습니다",
    "Mit llama.cpp und zwei RTX 3090 ist die Generierung nicht schneller als mit einer Karte.",
    "На двух видеокартах генерация не быстрее, чем на одной",
    "Con dos GPUs no es más rápido que con una",
])
def test_no_speed_up_from_more_gpus_in_many_languages(text):
    assert claims.symptom(said(text)) == "scaling"


@pytest.mark.parametrize("text", [
    "Mit zwei Karten ist es schneller.",
    "Con dos GPUs es más rápido.",
    "2枚のGPUで速くなりました",
    "На двух видеокартах стало быстрее.",
])
def test_a_speed_up_from_more_gpus_is_no_scaling_complaint(text):
    assert claims.symptom(said(text)) != "scaling"


@pytest.mark.parametrize("text", [
    # (review of issue 11 r) the count is not of GPUs, "同じ" is not "the same speed", "before" is not fewer GPUs
    "画像を2枚処理すると遅くなります",
    "요청 2개를 보내면 느려요",
    "2枚のGPUに同じモデルをロードしました。",
    "Tengo 2 tarjetas y la carga del modelo es más lenta que antes",
    "写真を3枚生成すると時間が変わらないです",        # three pictures
    "문서 3개를 처리하면 느려집니다",                 # three documents
    "Mit zwei Karten ist das Laden langsamer als vorher.",
])
def test_a_count_of_other_things_or_a_speed_against_before_is_no_scaling(text):
    assert claims.symptom(said(text)) != "scaling"


@pytest.mark.parametrize("text", [
    "GPUを2枚にしても同じ速度です",
    "2枚のGPUで動かすと遅くなります",
    "GPU를 2개 사용해도 빨라지지 않습니다",
    "Con 2 tarjetas es más lenta que con una.",
])
def test_more_gpus_counted_beside_their_noun_stay_a_scaling_complaint(text):
    assert claims.symptom(said(text)) == "scaling"


def test_a_figure_that_fits_outranks_the_layouts_prior(tmp_path):
    """A GeForce pair without P2P (the symptom's prior: p2p_disabled) whose measured rate sits in the expected band:
    the fit says what holds here, and the prior stays as a lead below it, at info."""
    (tmp_path / "issue.md").write_text(
        "# vLLM TP2 slower than TP1 on two 4090\n\nvLLM with --tensor-parallel-size 2 on two RTX 4090 gives 60 tok/s "
        "for Llama-2-7b, while one 4090 gives 75 tok/s. Is this expected?\n")
    from diagnose.bundle import read_bundle
    from rules.engine import evaluate, ticket_findings, ticket_verdict

    facts = read_bundle([tmp_path / "issue.md"])
    findings = evaluate(facts)
    assert ticket_verdict(facts, findings).category == "expected_physics"
    (prior,) = [f for f in ticket_findings(facts, findings) if f.rule == "ticket.symptom_prior"]
    assert prior.severity == "info" and prior.category == "p2p_disabled"
