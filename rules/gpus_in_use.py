"""Which of the reporter's GPUs do the work and how the model is spread over them: "only one of my GPUs is used" read
from their words, whether they asked the engine to spread the model, and whether an engine splits it by layers. Read
by the ticket rules and by the topology ask (rules.workload), so it sits below both."""

from __future__ import annotations

import re

from diagnose.evidence import Facts, Measurement, Workload
from rules import catalog, claims
from rules.common import engine_of, gpu_count, wfield

# "Only one of my GPUs is used": an engine serves a model that fits one GPU from one GPU unless told to shard it
# (vLLM and SGLang default to tensor_parallel_size / --tp 1; Ollama loads a model that fits on a single GPU onto that
# GPU, its FAQ: https://github.com/ollama/ollama/blob/main/docs/faq.md "How does Ollama load models on multiple GPUs?";
# a PyTorch program runs on cuda:0 unless it places work elsewhere). Worded in the languages these threads use.
ONE_GPU_USED = re.compile(
    r"\bonly (?:ever )?(?:uses?|using|used|utili[sz]\w+|runs? on|loads? (?:it |the model )?(?:on|into|onto))\s+"
    r"(?:(?:one|1|a single|the first)\s+(?:of (?:the|my|them|those|these)\s+)?(?:\w+\s+)?(?:GPUs?|cards?|devices?)"
    r"|GPU\s*0|cuda:0)\b|"  # (a GPU noun after the number: "only uses one CPU core", "only uses 1 GB" are no GPU)
    # the engine's own choice, said without "only": "loading a model would automatically use one card",
    # "it now always loads onto a single GPU" (ollama/ollama#4198's wording)
    r"\b(?:automatically|always|now)\s+(?:uses?|using|loads?(?:\s+(?:it|the model))?\s+(?:on|into|onto)|runs?\s+on|"
    r"goes\s+(?:on|to))\s+(?:one|1|a single|the first)\s+(?:\w+\s+)?(?:GPUs?|cards?|devices?)\b|"
    # (para37c) the same choice with "by itself" / "on its own" after it: "the model loads onto one card by itself"
    r"\b(?:uses?|loads?(?:\s+(?:it|the model))?\s+(?:on|into|onto)|runs?\s+on|goes\s+(?:on|to))\s+"
    r"(?:one|1|a single|the first)\s+(?:\w+\s+)?(?:GPU|card|device)\s+(?:by itself|on its own)\b|"
    r"\bonly (?:one|1|a single|the first)\s+(?:of (?:the|my|them|those|these)\s+)?(?:\w+\s+)?(?:GPUs?|cards?)\b"
    r"[^.\n]{0,25}?\b(?:is |are |was |gets? |got )?(?:used|utili[sz]ed|in use|busy|working|active|loaded)\b|"
    r"\b(?:the )?(?:other|second|remaining|rest of the|other \d+)\s+(?:\w+\s+)?(?:GPUs?|cards?)\b[^.\n]{0,30}?"
    r"\b(?:stays? |are |is |sits? |remains? )?(?:idle|unused|not (?:being )?used|untouched|do(?:es)? nothing|at 0\s*%)|"
    # (review35) "只用到了其中1张卡" (one of them: hpcaitech/Open-Sora#216), "只有一张卡被利用推理" (put to use:
    # OpenMOSS/MOSS#151)
    r"只\s*(?:用了|使用了?|用到了?|调用了?|跑了?)\s*(?:其中(?:的)?)?\s*(?:一|1|第一)\s*(?:张|块|个)\s*(?:卡|GPU|显卡)|"
    # (para37c) the engine's own choice in Chinese, as "automatically use one card" above: "加载模型时自动只用一张卡"
    r"自动\s*(?:只)?\s*(?:用|使用|加载到|加载在|跑在|放在|分配到)\s*(?:了)?\s*(?:一|1|单)\s*(?:张|块|个)?\s*(?:卡|GPU|显卡)|"
    r"只有\s*(?:一|1)\s*(?:张|块|个)\s*(?:卡|GPU|显卡)\s*(?:在|被)?\s*(?:用|工作|跑|使用|利用|占用|运行|启动|加载)|"
    # (cn38) 占用 (taken, as nvidia-smi's process list shows a card held), 仅 (only, the written form of 只),
    # and where the model sits: "实际上只有一张显卡被占用" and "显示仅单卡运行"
    # (chatchat-space/Langchain-Chatchat#3202), "推理时只占用一张卡显存" (QwenLM/Qwen3-VL#561),
    # "好像还是在一张卡上" (OpenBMB/MiniCPM-V#476), "本地启动会在第一张卡上启动" (xusenlinzy/api-for-open-llm#218);
    # not a part placed on purpose ("把视觉部分放在第一张卡上": 放 is no verb here)
    r"(?:只|仅)\s*(?:占用|占)了?\s*(?:其中(?:的)?)?\s*(?:一|1|第一)\s*(?:张|块|个)\s*(?:卡|GPU|显卡)|"
    # (a run that works only on one card is no such observation: "仅单卡运行正常", "只在单卡上测试过")
    r"(?:只|仅)\s*(?:有\s*)?(?:单卡|单张卡|一张卡)\s*(?:在)?\s*(?:运行|跑|工作|被占用|被使用)"
    r"(?!\s*(?:正常|没问题|可以|成功|时|的时候|过))|"
    r"(?:还是|只|仅|都|全都|全部|仍然?|依然|始终|一直)\s*(?:跑|运行|加载|启动)?\s*在\s*(?:一|1|第一|单)\s*(?:张|块|个)?\s*"
    r"(?:卡|GPU|显卡)\s*上(?!\s*(?:测|试|验证|跑过|运行过|做过|正常|没问题|可以))|"
    r"在\s*第一\s*(?:张|块|个)\s*(?:卡|GPU|显卡)\s*上\s*(?:启动|运行|加载)|"
    # (lang40) the program's default said: "我有8张2080Ti，默认是单卡运行" (opendatalab/MinerU#2718),
    # "如何指定多张GPU卡跑，默认用一张" (zai-org/CogVLM2#208); READMEs say it the same way ("训练脚本默认单卡运行",
    # "单个进程默认只用一张卡（model.tensor_parallel_size: 1）"). Not a default that works ("默认单卡运行正常"), nor a
    # config's name ("默认单卡配置" is a file, not what ran)
    r"默认\s*(?:(?:是|只|就|仅)\s*)?(?:只\s*)?(?:(?:用|使用|跑|在|运行在|加载到|加载在)\s*)?"
    r"(?:单卡|单张卡|单\s*GPU|(?:一|1)\s*(?:张|块)\s*(?:卡|GPU|显卡|(?=[，,。；;]))|(?:一|1)\s*(?:个)\s*GPU)"
    r"(?!\s*(?:(?:运行|跑)\s*)?(?:正常|没问题|可以|成功|配置|时|的时候))|"
    r"(?:另一张|另外的|其他的?|其余的?)\s*(?:卡|GPU|显卡)\s*(?:一直|始终)?\s*(?:都)?(?:没有|没|未)(?:被)?(?:用|使用|工作)|"
    # "双卡4090推理时有一卡一直没有用上" (one of the two cards never used, chatchat-space/Langchain-Chatchat#3002)
    r"有\s*(?:一|1)\s*(?:张|块|个)?\s*(?:卡|GPU|显卡)\s*(?:一直|始终)?\s*(?:都)?(?:没有|没|未)(?:被)?"
    r"(?:用上|用到|使用|工作)|"
    r"(?:1|一)\s*枚\s*(?:の\s*(?:GPU|グラボ|カード)\s*)?しか\s*(?:使われ|使用され|動い|使っ)|"
    r"(?:하나|1\s*개|한\s*개|한\s*장)\s*(?:만|밖에)\s*(?:사용|쓰|동작|작동)|"
    r"\bnur (?:eine|1|die erste) (?:GPU|Grafikkarte|Karte)\b[^.\n]{0,30}?"
    r"\b(?:genutzt|verwendet|benutzt|ausgelastet|aktiv)|"
    r"(?:используется|работает|задействована|загружена)\s+только\s+(?:одна|1|первая)\s+(?:видеокарта|GPU|карта)|"
    r"только\s+(?:одна|1|первая)\s+(?:видеокарта|GPU|карта)\s+(?:используется|работает|загружена)|"
    r"\bsolo (?:usa|utiliza|se usa|se utiliza|está usando|ocupa)\s+(?:una|1|la primera)\s+(?:GPU|tarjeta)", re.I)
# ... unless they take turns: one GPU busy at a time is a layer split (ticket.symptom_prior says why).
# (scaling44) "only one GPU is busy at any time" is the same turn-taking in accelerate's own words ("only one GPU will
# be active at a given moment", https://huggingface.co/docs/accelerate/usage_guides/big_modeling)
# (fr44) ... closing the busy clause: "at any time I check nvidia-smi" says when the writer looks, not turns.
# (fr44r2) ... or a "when" of looking ("at any given moment when we look"); not "when generating", "when I run
# generate()", the work that takes turns; a comma before the pronoun closes it too ("at any time, I see ...").
_IN_TURN = re.compile(r"\bat a time\b|\b(?:at any (?:given )?|at a given )(?:time|moment)\b"
                      r"(?!,?\s+(?:(?:when|whenever|that)\s+(?:I|we|you|they|he|she|someone|anyone)\s+(?:\w+\s+)?"
                      r"(?:look|check|watch|see|glance|monitor|observe|view|open|peek|query|run\s+nvidia-smi)|"
                      r"(?:I|we|you|they|he|she|someone|anyone))\b)|"
                      r"\bat once\b|\bone after (?:the )?other\b|\bin turns?\b|\btak(?:e|es|ing) turns\b|"
                      r"\balternat\w*|\bsequential\w*|轮流|交替|依次|順番|交互|번갈아|по очереди|abwechselnd|"
                      r"por turnos", re.I)


# One GPU, named by its index, seen at work ("nvidia-smi shows GPU-2 is being used", "only GPU 1 is busy"), where the
# same text makes two or more devices visible (CUDA_VISIBLE_DEVICES=2,3: the CUDA environment variable lists the
# devices a process may use, https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars): one of the
# GPUs offered does the work (ollama/ollama#5093). A sentence naming a second index busy is no such statement.
_INDEX_BUSY = re.compile(r"\b(?:shows?|showing|shown|see|sees|saw|seeing|only|just)\s+(?:that\s+)?(?:the\s+)?"
                         r"GPU[- ]?#?(\d+)\s+(?:is\s+|was\s+)?(?:being\s+)?(?:used|busy|in use|utili[sz]ed|loaded|"
                         r"working|active)\b", re.I)
_GPU_INDEX = re.compile(r"\bGPU[- ]?#?(\d+)\b", re.I)
_VISIBLE_SEVERAL = re.compile(r"\bCUDA_VISIBLE_DEVICES\s*=\s*[\"']?\d+\s*,\s*\d+")


def _one_index_busy(sentence: str, text: str) -> re.Match | None:
    m = _INDEX_BUSY.search(sentence)
    if not m or not _VISIBLE_SEVERAL.search(text) or len({g for g in _GPU_INDEX.findall(sentence)}) > 1:
        return None
    return m


_HABIT_WOULD = re.compile(r"\bwould\s+$", re.I)
# (lang40) Advice in Chinese before the words, in their clause: "建议默认单卡运行", "可以试试只用一张卡",
# "最好只占用一张卡" recommend a placement, they do not report one (claims._GUESS reads the English "you could ...");
# not what was tried ("尝试了只用一张卡": 了 or 过 after it reports the trial)
_ADVICE_ZH_BEFORE = re.compile(r"(?:建议|推荐|不妨|可以试试|试试|尝试(?![了过])|最好|应该)[^，,。；;！!？?\n]{0,12}$")


def one_gpu_in_use(facts: Facts) -> claims.Claim | None:
    """The reporter's observation that one of their GPUs does the work and the rest idle, or None: not negated
    ("no longer only one GPU is used"), not a question ("is only one GPU used?"), not advice or a condition ("you
    should only use one GPU"), and not GPUs taking turns."""
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            m = ONE_GPU_USED.search(sentence) or _one_index_busy(sentence, text)
            if not m:
                continue
            # "loading a model would automatically use one card": a habit ('would' of what it kept doing), not a
            # condition; the 'would' right before "automatically"/"always" is left out of the clause checked
            habit = _HABIT_WOULD.search(sentence[:m.start()]) if m.group(0)[:1].lower() == "a" else None
            at = habit.start() if habit else m.start()
            if _IN_TURN.search(sentence) or claims.offered(sentence, m.start()) \
                    or claims.conditional(sentence[:at]) or claims.negated_words(sentence, m) \
                    or claims.zh_not_seen(sentence, m) or _ADVICE_ZH_BEFORE.search(sentence[:m.start()]):
                continue
            quote = claims.one_line(sentence[max(0, m.start() - 40):m.end() + 40])
            return claims.Claim("one_gpu_in_use", source, quote)
    return None


def sharding_asked(facts: Facts) -> bool:
    """Did the reporter ask the engine to spread the model (TP or PP of 2 or more, a layer split's flag)? Then one
    GPU doing the work is not the default placement."""
    # (a degree of 1 written is no ask: claims reads "-tp 1" and "pipeline parallel size 1" as ruled out; mend41)
    return (wfield(facts, "tp")[0] or 1) >= 2 or (wfield(facts, "pp")[0] or 1) >= 2 \
        or bool(claims.find(facts, "layer_split")) \
        or any(not c.guess for kind in ("tp_asked", "pipeline_parallel") for c in claims.find(facts, kind))


# Engines that place whole layers on each GPU (pipeline without overlap for one stream).
# ExLlama (v1) only splits by layers; ExLlamaV2 also runs tensor parallelism, so its name alone says neither.
# llama.cpp's own programs (https://github.com/ggml-org/llama.cpp/tree/master/tools) run llama.cpp.
# llama-cpp-python (https://github.com/abetlen/llama-cpp-python) binds llama.cpp and splits as it does.
# ("llamacpp": the catalog profile of llama.cpp and of what embeds it under other names, such as LM Studio, whose
# runtime splits by layers as llama.cpp does: "LM Studio is still splitting VRAM allocation across all installed GPUs",
# lmstudio-ai/lmstudio-bug-tracker#1608)
LAYER_SPLIT_ENGINES = ("llama.cpp", "llama-bench", "llama-server", "llama-cli", "llama-cpp-python", "ollama",
                       "text-generation-webui", "accelerate", "koboldcpp", "exllama", "llamacpp")
_LAYER_SPLIT_NAMES = re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(e).replace(r"\-", "[-_]")
                                                               for e in LAYER_SPLIT_ENGINES)
                                + r")(?![\w-])", re.I)


def layer_split_engine(facts: Facts) -> bool:
    """Does the ticket run an engine that splits by layers? Whole names ('exllama' is not 'exllamav2'); Hugging Face
    transformers counts unless tensor parallelism is asked of it."""
    if any(w.extra.get("split_mode") in ("row", "tensor", "graph") for w in facts.of(Workload)):
        return False  # llama.cpp told to split each layer's tensors over the GPUs (-sm row/tensor; ik_llama.cpp graph)
    words = " ".join(w.framework or "" for w in facts.of(Workload)) + " " + (engine_of(facts) or "")
    if _LAYER_SPLIT_NAMES.search(words):
        return True
    # transformers under another engine's launcher is that engine's split, not accelerate's layers: "deepspeed
    # --num_gpus 8 bloom-ds-zero-inference.py" (deepspeedai/DeepSpeed#2892) shards every layer with ZeRO, and
    # deepspeed.init_inference slices tensors (https://www.deepspeed.ai/tutorials/inference-tutorial/)
    engines = {e.key for w in facts.of(Workload) if (e := catalog.find_engine(w.framework)) is not None}
    return engines == {"hf-eager"} and not any(not c.guess for c in claims.find(facts, "tp_asked"))


def splits_only_if_told(facts: Facts) -> bool:
    """Is the layer-split engine of the ticket Hugging Face transformers alone (layer_split_engine's last case, no
    layer-split engine named)? It runs on one GPU unless a device_map spreads it (https://huggingface.co/docs/
    accelerate/usage_guides/big_modeling), where llama.cpp and its embedders spread over the GPUs they see: its GPU
    count is not to be assumed several (fastchat.serve.cli --load-8bit on one GPU, lm-sys/FastChat#504)."""
    words = " ".join(w.framework or "" for w in facts.of(Workload)) + " " + (engine_of(facts) or "")
    return layer_split_engine(facts) and not _LAYER_SPLIT_NAMES.search(words)


def layer_split_over_gpus(facts: Facts) -> bool:
    """Is the model split by layers over two or more GPUs? A layer-split engine on one GPU splits nothing; with the
    GPU count unsaid only the reporter's own words of a split ('device_map=auto over the cards'), or a layer-split
    engine run on GPUs said several without a number ('running ollama on a machine with multiple GPUs',
    ollama/ollama#1288), say there is one."""
    if any(w.extra.get("split_mode") == "none" for w in facts.of(Workload)):
        return False  # (past45) llama.cpp's split mode none runs on one GPU (tools/server/README.md): nothing is split
    n = max(wfield(facts, "tp")[0] or 0, gpu_count(facts) or 0, *(m.gpus or 0 for m in facts.of(Measurement)))
    said = claims.find(facts, "layer_split")
    if n:
        return n >= 2 and bool(said or layer_split_engine(facts))
    return bool(said) or (layer_split_engine(facts) and claims.several_gpus(facts))
