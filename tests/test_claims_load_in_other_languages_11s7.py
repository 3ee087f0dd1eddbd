"""Issue 11, round seven: the load a rate was measured at, and "in total", said in German, French, Spanish,
Portuguese, Italian, Japanese and Korean.

A serving figure means one thing at one request and another at 64 in flight (vLLM's and SGLang's benchmarks set the
load with --max-concurrency, https://docs.vllm.ai/en/stable/cli/bench/serve.html). The English and Chinese words were
read; the others were not, so "3.100 tok/s insgesamt mit 64 gleichzeitigen Anfragen" was judged as one stream's rate.
The words are the ordinary ones of each language for requests or users served at once, as real pages write them:
"über 100 gleichzeitige Nutzer pro GPU" (https://www.21medien.de/de/library/vllm), "plusieurs requêtes simultanément"
and "servir des dizaines d'utilisateurs en parallèle" (https://askem.eu/en/2026/04/07/vllm-servir-des-llm-a-haute-
performance-en-production/: no count, so no load). None of these sentences comes from a corpus case.
"""

import pytest

from diagnose.artifacts.issue_md import CONCURRENT, parse
from diagnose.evidence import Measurement


def load(text: str) -> int | None:
    m = CONCURRENT.search(text)
    return int(next(g for g in m.groups() if g)) if m else None


@pytest.mark.parametrize("text,n", [
    ("vLLM bedient über 100 gleichzeitige Nutzer pro GPU für Llama 70B", 100),   # 21medien.de
    ("Bei 32 parallelen Anfragen sinkt die Latenz kaum", 32),
    ("avec 16 requêtes simultanées le débit plafonne", 16),
    ("con 24 solicitudes concurrentes el servidor responde lento", 24),
    ("com 8 requisições simultâneas a latência dobra", 8),
    ("con 10 richieste in parallelo", 10),
    ("64件の同時リクエストでスループットを測りました", 64),
    ("동시 요청 12개에서 속도가 떨어집니다", 12),
])
def test_a_load_said_in_another_language_is_read(text, n):
    assert load(text) == n


@pytest.mark.parametrize("text", [
    "3-5-mal mehr gleichzeitige Nutzer pro GPU",                      # 21medien.de: a factor, no count
    "traiter plusieurs requêtes simultanément",                        # askem.eu: no count
    "servir des dizaines d'utilisateurs en parallèle",                 # askem.eu: no count
    "Wir haben 4 GPUs und 64 GB Speicher",                             # counts of other things
    "32 utilisateurs au total sur la journée",                         # users in a day, not at once
])
def test_no_load_where_no_count_of_requests_at_once_is_said(text):
    assert load(text) is None


def rates(text: str) -> list[Measurement]:
    return [m for m in parse(text, "issue.md") if isinstance(m, Measurement) and m.unit == "tok/s"]


@pytest.mark.parametrize("text", [
    "Llama-3-8B mit vLLM auf einer A100. Bei 32 gleichzeitigen Anfragen kommen wir auf 1.500 tok/s insgesamt.",
    "Llama-3-8B avec vLLM sur une A100. Avec 32 requêtes simultanées nous avons 1500 tok/s au total.",
])
def test_a_total_at_a_stated_load_is_the_aggregate_of_that_load(text):
    [m] = rates(text)
    assert (m.value, m.concurrency, m.scope) == (1500, 32, "aggregate")


def test_the_same_rate_without_total_is_not_called_an_aggregate():
    [m] = rates("Llama-3-8B mit vLLM auf einer A100. Bei 32 gleichzeitigen Anfragen sehen wir 45 tok/s pro Anfrage.")
    assert m.concurrency == 32 and m.scope != "aggregate"
