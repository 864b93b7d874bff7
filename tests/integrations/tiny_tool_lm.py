"""A tiny causal LM that calls tools: a fixed script of tool calls, then the end of its turn.

The tokenizer has a character vocabulary, Qwen2.5's control tokens and TRL's copy of Qwen2.5's
chat template (so TRL recognises it and parses ``<tool_call>`` blocks), and one token per
scripted tool call, whose text is the whole ``<tool_call>...</tool_call>`` block. The model is a
one-layer Llama whose attention and MLP write nothing, so the next token depends on the current
one alone: its embedding picks a row of the output head. The output head sends every ordinary
token to the first call, each call to the next one, and the last call to ``<|im_end|>``, with
margins that make sampling pick them with probability 1 - 1e-20 or more. So every assistant
turn, the first and each one after tool results alike, is the whole script, then the turn's end.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping, Sequence
from typing import Any

from codegym.task import Task, TaskSet, TestCase

IM_START, IM_END, PAD = "<|im_start|>", "<|im_end|>", "<|endoftext|>"
MARGIN = 60.0  # the logit of the scripted next token above every other one

# Two tasks that one scripted bash call solves for f1 only: the stub is "def fi(x):\n".
TINY = TaskSet(
    Task(id=f"tiny/{i}", family="PythonFunction", prompt=f"def f{i}(x):\n",
         tests=(TestCase("public", f"assert f{i}(1) == {i}", hidden=False), TestCase("hidden", f"assert f{i}(2) == {i}")),
         metadata={"entry_point": f"f{i}", "prefix": "", "test_prelude": ""})
    for i in range(2)
)  # fmt: skip


def tool_call_text(name: str, arguments: Mapping[str, Any] | None = None) -> str:
    """A call as Qwen2.5 writes it (and as TRL's Qwen response template parses it)."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': dict(arguments or {})})}\n</tool_call>"


def tiny_tool_model_and_tokenizer(
    calls: Sequence[str], hidden_size: int = 16, max_length: int = 8192
) -> tuple[Any, Any]:
    """A model that answers every turn with ``calls`` (texts from `tool_call_text`), in order."""
    import torch
    from tokenizers import AddedToken, Tokenizer, decoders, models
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen2_5_chat_template

    characters = sorted(set(string.printable))
    vocab = {PAD: 0, IM_END: 1, IM_START: 2, "<unk>": 3, **{c: i + 4 for i, c in enumerate(characters)}}
    call_ids = [len(vocab) + i for i in range(len(calls))]
    vocab.update(zip(calls, call_ids, strict=True))
    core = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="<unk>"))
    core.decoder = decoders.Fuse()
    core.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in (PAD, IM_END, IM_START)])
    core.add_tokens([AddedToken(call, special=False, normalized=False) for call in calls])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token=PAD, eos_token=IM_END, unk_token="<unk>")
    tokenizer.chat_template = qwen2_5_chat_template

    config = LlamaConfig(
        vocab_size=len(vocab), hidden_size=hidden_size, intermediate_size=2 * hidden_size, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=max_length, pad_token_id=0,
        eos_token_id=1, bos_token_id=2, tie_word_embeddings=False,
    )  # fmt: skip
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    # State k of the script: 0 after an ordinary token, i + 1 after the i-th call. Embeddings are
    # one-hot states (RMSNorm scales them to sqrt(hidden_size)); head row t reads the state that
    # emits t.
    assert len(calls) + 1 <= hidden_size
    scale = MARGIN / hidden_size**0.5
    with torch.no_grad():
        layer = model.model.layers[0]
        layer.self_attn.o_proj.weight.zero_()
        layer.mlp.down_proj.weight.zero_()
        embed = model.model.embed_tokens.weight
        embed.zero_()
        embed[:, 0] = 1.0
        head = model.lm_head.weight
        head.zero_()
        for state, token in enumerate(call_ids):
            embed[token].zero_()
            embed[token, state + 1] = 1.0
        for state, token in enumerate([*call_ids, 1]):
            head[token, state] = scale
    return model, tokenizer
