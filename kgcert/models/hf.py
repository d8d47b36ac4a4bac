"""Hugging Face transformers runner: batched greedy/sampled generation and choice scoring.

Batches are length-sorted and left-padded (attention mask and position ids follow the padding),
so a prompt is computed as it would be alone, up to rounding: in float32 on a CPU its greedy
output does not depend on the batch it lands in, while in bf16 on a GPU other batch shapes pick
other kernels, and a near-tie between two tokens can go either way (random-weight models, whose
logits are nearly flat, matched batch 1 on 0-10 of 16-32 prompts). The batch size starts at
``max_batch_size`` and halves on CUDA out-of-memory. Prompts that do not fit the context window
are error outcomes, never truncated (the reference code cut the options off the end).
Sampled generations (temperature > 0) are seeded from the config seed and the batch's sample
indices and prompts: reproducible for the same batch, not across batch sizes; the response
cache keeps each sample index's first result.
Prompts that share a head (a cell's instructions and worked examples) start from its key/value
cache, computed once (see :mod:`kgcert.models.headcache`); ``reuse_head=false`` turns it off.
The weights load on the first prompt that needs them: a rerun answered from the response cache
never loads them.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import inspect
import logging
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    PreTrainedModel,
    StoppingCriteria,
    StoppingCriteriaList,
)

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models.base import (
    GenerationConfig,
    ModelRequest,
    ModelResponse,
    report_answers,
)
from kgcert.models.headattention import NAME as HEAD_ATTENTION
from kgcert.models.headattention import register as register_head_attention
from kgcert.models.headattention import split_head
from kgcert.models.headcache import Head, HeadCache, KeyValues
from kgcert.models.quiet import quiet_loading
from kgcert.models.weights import context_length, describe_weights
from kgcert.strategy import CLOSE, OPEN

log = logging.getLogger(__name__)

_DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "float16": torch.float16,
    "fp16": torch.float16,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
}


def answer_line_complete(text: str) -> bool:
    """True once the last ``correct answer`` line has content and has ended with a newline;
    in a reasoning reply (chain or tree of thought), only after the reasoning has closed."""
    if OPEN in text:
        closed = text.rfind(CLOSE)
        if closed < 0:
            return False
        text = text[closed:]
    idx = text.lower().rfind("correct answer")
    if idx < 0:
        return False
    rest = text[idx + len("correct answer") :]
    match = re.search(r"\w[^\n]*\n", rest)
    if match is None:
        return False
    line = match.group(0)
    return not ("<" in line and ">" in line and "option" in line.lower())  # an echoed template


class AnswerLineStop(StoppingCriteria):
    """Stops each sequence of a batch on its own once its answer line is complete."""

    def __init__(self, tokenizer: Any, prompt_len: int,
                 on_stop: Callable[[], None] = lambda: None) -> None:
        self.tokenizer = tokenizer
        self.prompt_len = prompt_len
        self.stopped_at: dict[int, int] = {}
        self.on_stop = on_stop  # a row's answer is complete (progress, before the batch ends)

    def __call__(self, input_ids: torch.Tensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        generated = input_ids[:, self.prompt_len :]
        if generated.shape[1] == 0:
            return done  # type: ignore[return-value]
        last = self.tokenizer.batch_decode(generated[:, -1:], skip_special_tokens=True)
        for row, piece in enumerate(last):
            if row in self.stopped_at:
                done[row] = True
            elif "\n" in piece:
                text = self.tokenizer.decode(generated[row], skip_special_tokens=True)
                if answer_line_complete(text):
                    self.stopped_at[row] = generated.shape[1]
                    done[row] = True
                    self.on_stop()
        return done  # type: ignore[return-value]


def _resolve_source(name: str) -> str:
    path = Path(name).expanduser()
    if path.exists():
        return str(path.resolve())
    looks_local = name.startswith(("/", ".", "~")) or "\\" in name or name.count("/") > 1
    if looks_local:
        raise InputError(f"model path not found: {name}")
    return name


def _resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise InputError(f"device {device!r} requested but no CUDA GPU is available")
    return device


def _resolve_dtype(dtype: str, device: str) -> torch.dtype:
    if dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if dtype not in _DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; use one of auto, {', '.join(sorted(_DTYPES))}")
    return _DTYPES[dtype]


def _quantization_config(bits: int | None, dtype: torch.dtype) -> Any:
    if bits is None:
        return None
    if not torch.cuda.is_available():
        raise InputError(
            f"{bits}-bit quantization uses bitsandbytes, which needs a CUDA GPU; none is available"
        )
    try:
        import bitsandbytes  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            "bitsandbytes is not installed; install it with: pip install 'kgcert[quant]'"
        ) from exc
    from transformers import BitsAndBytesConfig

    if bits == 4:
        return BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_compute_dtype=dtype, bnb_4bit_quant_type="nf4"
        )
    return BitsAndBytesConfig(load_in_8bit=True)


def _generation_attention(device: torch.device) -> contextlib.AbstractContextManager[Any]:
    """SDPA without its cuDNN backend while generating on a GPU.

    cuDNN builds an execution plan for each new attention shape, and every decoding step is a
    new one (the keys grow by a token), so it would build one per step. On an H200 that made a
    1B model's steps on 3,500-token prompts 46 ms instead of the 17 ms of shapes already seen;
    without cuDNN, batch-1 generation ran 2.3 times as fast and batched 1.9 times. Choice
    scoring keeps cuDNN: it runs one forward pass per batch.
    """
    if device.type != "cuda":
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    without_cudnn = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]
    return sdpa_kernel(without_cudnn)


class _NoReuse(Exception):
    """This model's cache cannot be cut at a head (e.g. sliding-window layers)."""


def _is_oom(exc: BaseException) -> bool:
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


class HFModel:
    """A causal LM and its tokenizer; use :func:`create` or :meth:`from_objects`."""

    cacheable = True

    def __init__(
        self,
        model: PreTrainedModel | None,
        tokenizer: Any,
        *,
        name: str,
        config: GenerationConfig,
        max_batch_size: int = 16,
        identity: dict[str, Any] | None = None,
        loader: Callable[[], PreTrainedModel] | None = None,
        context_limit: int | None = None,
        reuse_head: bool = True,
    ) -> None:
        if max_batch_size < 1:
            raise InputError(f"max_batch_size must be >= 1, got {max_batch_size}")
        if model is None and loader is None:
            raise InputError("an hf model needs its weights or a loader for them")
        self._model = model.eval() if model is not None else None
        self._loader = loader
        self.tokenizer = tokenizer
        self.name = name
        self.config = config
        self.max_batch_size = max_batch_size
        self.batch_size = max_batch_size  # lowered on CUDA out-of-memory, kept for later calls
        self._identity = identity or {"provider": "hf", "model": name}
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.pad_id = int(self.tokenizer.pad_token_id)
        self.context_limit = (context_limit if model is None
                              else self._context_limit(model))
        self.reuse_head = reuse_head
        self.heads = HeadCache(self._head_key_values)

    @property
    def model(self) -> Any:
        """The weights, loaded on first use."""
        if self._model is None:
            if self._loader is None:
                raise InputError(f"model {self.name} is closed")
            self._model = self._loader().eval()
            self._loader = None
        return self._model

    @model.setter
    def model(self, value: Any) -> None:
        self._model = value

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _starting(self) -> None:
        """Load the weights if they are not yet, then tell the progress that computing
        starts (its rate leaves the load out)."""
        assert self.model is not None
        report_answers(self, 0)

    @classmethod
    def from_objects(
        cls,
        model: PreTrainedModel,
        tokenizer: Any,
        name: str = "in-memory",
        config: GenerationConfig | None = None,
        max_batch_size: int = 16,
    ) -> HFModel:
        return cls(
            model,
            tokenizer,
            name=name,
            config=config or GenerationConfig(),
            max_batch_size=max_batch_size,
        )

    # -- identity and resources ---------------------------------------------------------------

    def identity(self) -> dict[str, Any]:
        return dict(self._identity)

    def close(self) -> None:
        self._model = None
        self._loader = None
        self.heads.clear()
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def eos_ids(self) -> list[int]:
        ids: set[int] = set()
        gen_eos = getattr(self.model.generation_config, "eos_token_id", None)
        if isinstance(gen_eos, int):
            ids.add(gen_eos)
        elif gen_eos:
            ids.update(int(i) for i in gen_eos)
        if self.tokenizer.eos_token_id is not None:
            ids.add(int(self.tokenizer.eos_token_id))
        return sorted(ids)

    @property
    def last_logits_only(self) -> dict[str, int]:
        """Choice scoring reads the last position's logits alone; models that can skip the
        others save a (batch x length x vocabulary) tensor, gigabytes at real prompt lengths."""
        accepted = inspect.signature(self.model.forward).parameters
        return {"logits_to_keep": 1} if "logits_to_keep" in accepted else {}

    @staticmethod
    def _context_limit(model: PreTrainedModel) -> int | None:
        limit = getattr(model.config, "max_position_embeddings", None)
        return int(limit) if limit else None

    # -- prompts ------------------------------------------------------------------------------

    def render(self, request: ModelRequest) -> str:
        """The prompt text the model reads: chat template if the tokenizer has one."""
        if getattr(self.tokenizer, "chat_template", None):
            messages = request.chat()
            try:
                text = self.tokenizer.apply_chat_template(
                    messages, tokenize=False, add_generation_prompt=True
                )
            except Exception:  # templates that reject a system role: fold it into the user turn
                if messages[0]["role"] != "system" or len(messages) < 2:
                    raise
                merged = [
                    {
                        "role": "user",
                        "content": messages[0]["content"] + "\n\n" + messages[1]["content"],
                    },
                    *messages[2:],
                ]
                text = self.tokenizer.apply_chat_template(
                    merged, tokenize=False, add_generation_prompt=True
                )
            return str(text)
        return request.plain_text()

    def _encode_all(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of many texts in one call: a fast tokenizer spreads a batch over its
        threads, and a run's prompts are thousands of tokens each."""
        if not texts:
            return []
        templated = bool(getattr(self.tokenizer, "chat_template", None))
        encoded = self.tokenizer(list(texts), add_special_tokens=not templated)["input_ids"]
        return [[int(i) for i in ids] for ids in encoded]

    def _encode(self, text: str) -> list[int]:
        return self._encode_all([text])[0]

    # -- batching -----------------------------------------------------------------------------

    def _pad(self, rows: Sequence[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            ids[i, width - len(row) :] = torch.tensor(row, dtype=torch.long)
            mask[i, width - len(row) :] = 1
        return ids.to(self.device), mask.to(self.device)

    def _inputs(
        self, batch: Sequence[list[int]], head: Head | None
    ) -> tuple[torch.Tensor, torch.Tensor, dict[str, Any]]:
        """Token ids and attention mask of a batch, and the keyword that hands the model the
        head's cache. With a head, rows are [head][padding][suffix]: the mask hides the
        padding and positions follow the mask, so each row is computed as it would be alone."""
        if head is None:
            input_ids, mask = self._pad(batch)
            return input_ids, mask, {}
        suffixes, suffix_mask = self._pad([row[len(head):] for row in batch])
        n, device = len(batch), suffixes.device
        head_ids = torch.tensor([head.ids], dtype=torch.long, device=device).expand(n, -1)
        head_mask = torch.ones((n, len(head)), dtype=torch.long, device=device)
        return (torch.cat([head_ids, suffixes], 1), torch.cat([head_mask, suffix_mask], 1),
                {self._cache_keyword(): head.cache(self.model, n)})

    def _cache_keyword(self) -> str:
        accepted = inspect.signature(self.model.forward).parameters
        return "cache" if "cache" in accepted else "past_key_values"

    def _can_split_head(self) -> bool:
        """Whether a suffix's attention over the head can skip the explicit mask (CPU SDPA;
        see :mod:`kgcert.models.headattention`)."""
        if self.device.type != "cpu":
            return False
        config = self.model.config
        if config._attn_implementation == "sdpa":
            self.model.set_attn_implementation(register_head_attention())
        return bool(config._attn_implementation == HEAD_ATTENTION)

    def _head_for(self, rows: Sequence[list[int]]) -> Head | None:
        """The shared head of these prompts' ids, when reuse is on and pays."""
        if not self.reuse_head:
            return None
        try:
            return self.heads.for_rows(rows)
        except _NoReuse as reason:
            log.info("head reuse off for %s: %s", self.name, reason)
            self.reuse_head = False
        except Exception as exc:
            if not _is_oom(exc):
                raise
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        return None

    def _head_key_values(self, ids: list[int]) -> KeyValues:
        with torch.inference_mode():
            out = self.model(input_ids=torch.tensor([ids], device=self.device), use_cache=True)
        fields = getattr(out, "keys", lambda: ())()
        cache = out["cache"] if "cache" in fields else out.past_key_values
        layers = getattr(cache, "layers", None)
        if not layers or any(getattr(layer, "is_sliding", False) for layer in layers):
            raise _NoReuse("its cache is not one plain key/value tensor per layer")
        return [(layer.keys, layer.values) for layer in layers]

    def _run_batches(
        self,
        rows: dict[int, list[int]],
        step: Callable[[list[int]], list[Any]],
        results: dict[int, Any],
        largest: int | None = None,
    ) -> None:
        """Run ``step`` on request indices in length-sorted batches (longest first), of at most
        ``largest`` when given.

        The batch size halves on CUDA out-of-memory and stays lowered for later calls.
        """
        order = sorted(rows, key=lambda i: len(rows[i]), reverse=True)
        pos = 0
        while pos < len(order):
            chunk = order[pos : pos + min(self.batch_size, largest or self.batch_size)]
            try:
                outputs = step(chunk)
            except Exception as exc:
                if not _is_oom(exc):
                    raise
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                if len(chunk) == 1:
                    results[chunk[0]] = ModelResponse.failure("CUDA out of memory at batch size 1")
                    pos += 1
                    continue
                self.batch_size = max(1, len(chunk) // 2)
                log.warning("CUDA out of memory; batch size lowered to %d", self.batch_size)
                continue
            for i, out in zip(chunk, outputs, strict=True):
                results[i] = out
            pos += len(chunk)

    def _too_long(self, n_prompt: int, n_new: int) -> str | None:
        if self.context_limit is not None and n_prompt + n_new > self.context_limit:
            return (
                f"prompt has {n_prompt} tokens; with {n_new} new tokens it exceeds the model's "
                f"context of {self.context_limit} tokens"
            )
        return None

    # -- generation ---------------------------------------------------------------------------

    def generate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        config = config or self.config
        if config.mode == "choice":
            return self.score_choices(requests, config)
        results: dict[int, Any] = {}
        rows: dict[int, list[int]] = {}
        encoded = self._encode_all([self.render(request) for request in requests])
        for i, ids in enumerate(encoded):
            problem = self._too_long(len(ids), config.max_new_tokens)
            if problem:
                results[i] = ModelResponse.failure(problem)
            else:
                rows[i] = ids

        if rows:
            self._starting()
        report_answers(self, len(results))  # prompts too long: error outcomes, answered now
        head = self._head_for(list(rows.values()))

        def step(chunk: list[int]) -> list[ModelResponse]:
            sample_keys = [(requests[i].sample_index, rows[i]) for i in chunk]
            return self._generate_batch([rows[i] for i in chunk], config, sample_keys, head)

        self._run_batches(rows, step, results)
        return [results[i] for i in range(len(requests))]

    def _generate_batch(
        self,
        batch: list[list[int]],
        config: GenerationConfig,
        sample_keys: list[tuple[int, list[int]]],
        head: Head | None = None,
    ) -> list[ModelResponse]:
        start = time.perf_counter()
        input_ids, mask, cached = self._inputs(batch, head)
        width = input_ids.shape[1]
        eos_ids = self.eos_ids
        stopper = AnswerLineStop(self.tokenizer, width, lambda: report_answers(self, 1))
        kwargs: dict[str, Any] = {
            "max_new_tokens": config.max_new_tokens,
            "pad_token_id": self.pad_id,
            "eos_token_id": eos_ids or None,
            "do_sample": not config.greedy,
        }
        if config.greedy:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(temperature=config.temperature, top_p=config.top_p, top_k=None)
            digest = hashlib.sha256(repr((config.seed, sample_keys)).encode()).digest()
            torch.manual_seed(int.from_bytes(digest[:8], "little"))
        if config.stop_at_answer:
            kwargs["stopping_criteria"] = StoppingCriteriaList([stopper])
        with torch.inference_mode(), _generation_attention(input_ids.device):
            out = self.model.generate(input_ids=input_ids, attention_mask=mask, **kwargs,
                                      **cached)
        report_answers(self, len(batch) - len(stopper.stopped_at))
        elapsed = (time.perf_counter() - start) / len(batch)
        responses = []
        for row, prompt in enumerate(batch):
            generated = out[row, width:].tolist()
            length = len(generated)
            if row in stopper.stopped_at:
                length = min(length, stopper.stopped_at[row])
            for j, tok in enumerate(generated[:length]):
                if tok in eos_ids:
                    length = j + 1
                    break
            text = self.tokenizer.decode(generated[:length], skip_special_tokens=True)
            responses.append(
                ModelResponse(
                    text=text,
                    prompt_tokens=len(prompt),
                    completion_tokens=length,
                    latency_s=elapsed,
                    gpu_s=elapsed if input_ids.device.type == "cuda" else 0.0,
                )
            )
        return responses

    # -- choice scoring -----------------------------------------------------------------------

    def choice_inputs(self, request: ModelRequest, prefix: str) -> tuple[list[int], list[int]]:
        """Context token ids and the single token id of each option number after ``prefix``."""
        return self._choice_inputs([request], prefix)[0]

    def _choice_inputs(
        self, requests: Sequence[ModelRequest], prefix: str
    ) -> list[tuple[list[int], list[int]]]:
        counts = []
        for request in requests:
            if not request.n_options:
                raise InputError("choice scoring needs the number of options in each request")
            counts.append(request.n_options)
        texts = [
            self.render(request) + prefix + str(k)
            for request, n in zip(requests, counts, strict=True)
            for k in range(1, n + 1)
        ]
        encoded = iter(self._encode_all(texts))
        return [self._split_options([next(encoded) for _ in range(n)]) for n in counts]

    @staticmethod
    def _split_options(variants: list[list[int]]) -> tuple[list[int], list[int]]:
        """The ids the prompt-with-option-k variants share, and each one's last id."""
        first = variants[0]
        if (
            len({v[-1] for v in variants if v}) > 1
            and all(len(v) == len(first) and v[:-1] == first[:-1] for v in variants[1:])
        ):  # the usual case, in C-speed list comparisons; then the general search
            return first[:-1], [v[-1] for v in variants]
        common = first
        for v in variants[1:]:
            k = 0
            while k < min(len(common), len(v)) and common[k] == v[k]:
                k += 1
            common = common[:k]
        option_ids = []
        for k, v in enumerate(variants, start=1):
            if len(v) != len(common) + 1:
                raise InputError(
                    f"choice scoring needs each option number to be one token after the answer "
                    f"prefix; option {k} is {len(v) - len(common)} tokens for this tokenizer"
                )
            option_ids.append(v[-1])
        return common, option_ids

    def score_choices(
        self, requests: Sequence[ModelRequest], config: GenerationConfig
    ) -> list[ModelResponse]:
        """One forward pass per prompt: the distribution over option numbers after the prefix."""
        results: dict[int, Any] = {}
        rows: dict[int, list[int]] = {}
        option_ids: dict[int, list[int]] = {}
        inputs = self._choice_inputs(requests, config.choice_prefix)
        for i, (context, ids) in enumerate(inputs):
            problem = self._too_long(len(context), 1)
            if problem:
                results[i] = ModelResponse.failure(problem)
                continue
            rows[i] = context
            option_ids[i] = ids

        if rows:
            self._starting()
        report_answers(self, len(results))
        head = self._head_for(list(rows.values()))

        def step(chunk: list[int]) -> list[ModelResponse]:
            start = time.perf_counter()
            batch = [rows[i] for i in chunk]
            input_ids, mask, cached = self._inputs(batch, head)
            if head is not None:  # the cache holds the head: run the suffixes alone
                input_ids = input_ids[:, len(head):]
            positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, -input_ids.shape[1]:]
            split = head is not None and len(batch) == 1 and self._can_split_head()
            with torch.inference_mode(), split_head() if split else contextlib.nullcontext():
                logits = self.model(
                    input_ids=input_ids,
                    # no padding: the model's own causal mask (built without a padding term)
                    attention_mask=None if bool(mask.all()) else mask,
                    position_ids=positions,
                    **cached,
                    **self.last_logits_only,
                ).logits[:, -1, :]
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            elapsed = (time.perf_counter() - start) / len(batch)
            out = []
            for row, index in enumerate(chunk):
                ids = option_ids[index]
                probs = torch.softmax(logprobs[row, ids], dim=-1).tolist()
                best = max(range(len(probs)), key=lambda k: probs[k]) + 1
                out.append(
                    ModelResponse(
                        text=f"{config.choice_prefix}{best}.",
                        prompt_tokens=len(rows[index]),
                        completion_tokens=0,
                        latency_s=elapsed,
                        gpu_s=elapsed if input_ids.device.type == "cuda" else 0.0,
                        choice_probs=tuple(float(p) for p in probs),
                    )
                )
            report_answers(self, len(out))
            return out

        # On a CPU a forward pass gains nothing from batching: one prompt of hundreds of tokens
        # already fills the matrix products, and padding sends attention down its slower
        # masked path (SmolLM2, 1,000-token prompts: 1.8 s a prompt at batch 16, 1.2 s alone).
        self._run_batches(rows, step, results, largest=1 if self.device.type == "cpu" else None)
        return [results[i] for i in range(len(requests))]


def load_tokenizer(source: str, gguf_file: str | None = None, **kwargs: Any) -> Any:
    extra = {"gguf_file": gguf_file} if gguf_file else {}
    return AutoTokenizer.from_pretrained(source, **extra, **kwargs)


def create(
    name: str,
    config: GenerationConfig,
    *,
    dtype: str = "auto",
    device: str = "auto",
    load_in_4bit: bool = False,
    load_in_8bit: bool = False,
    max_batch_size: int = 16,
    gguf_file: str | None = None,
    revision: str | None = None,
    trust_remote_code: bool = False,
    reuse_head: bool = True,
) -> HFModel:
    """``hf:<local path or hub id>``; 4/8-bit loading needs CUDA and ``kgcert[quant]``.

    The tokenizer loads now (prompts are measured with it); the weights on the first prompt
    that the response cache does not answer. ``reuse_head=false`` computes every prompt
    whole (results equal; for measuring what the head's cache saves).
    """
    if load_in_4bit and load_in_8bit:
        raise InputError("choose one of load_in_4bit and load_in_8bit")
    source = _resolve_source(name)
    device = _resolve_device(device)
    torch_dtype = _resolve_dtype(dtype, device)
    bits = 4 if load_in_4bit else 8 if load_in_8bit else None
    quant = _quantization_config(bits, torch_dtype)
    if gguf_file and not (Path(source) / gguf_file).exists() and Path(source).exists():
        raise InputError(f"model path not found: {Path(source) / gguf_file}")
    common: dict[str, Any] = {"trust_remote_code": trust_remote_code}
    if revision:
        common["revision"] = revision
    if gguf_file:
        common["gguf_file"] = gguf_file
    model_kwargs: dict[str, Any] = {"dtype": torch_dtype, **common}
    if quant is not None:
        model_kwargs["quantization_config"] = quant
        model_kwargs["device_map"] = {"": device if ":" in device else f"{device}:0"}
    what = f"model {source}" + (f" ({gguf_file})" if gguf_file else "")
    try:
        with quiet_loading(f"tokenizer of {what}"):
            tokenizer = AutoTokenizer.from_pretrained(source, **common)
            limit = context_length(source, gguf_file, common)
    except OSError as exc:
        raise _not_loadable(name, exc) from exc

    def load() -> PreTrainedModel:
        """Called on the first prompt that no cache answers."""
        started = time.perf_counter()
        try:
            with quiet_loading(f"{what}, {describe_weights(source, gguf_file)}"):
                model = AutoModelForCausalLM.from_pretrained(source, **model_kwargs)
        except OSError as exc:
            raise _not_loadable(name, exc) from exc
        if quant is None:
            model = model.to(device)  # type: ignore[arg-type]
        parameters = sum(p.numel() for p in model.parameters())
        print(f"loaded {what} ({parameters / 1e6:,.0f}M parameters) in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        return model

    identity = {
        "provider": "hf",
        "model": source,
        "gguf_file": gguf_file,
        "revision": revision,
        "dtype": str(torch_dtype).removeprefix("torch."),
        "quantization": f"{bits}bit" if bits else None,
    }
    return HFModel(
        None,
        tokenizer,
        name=f"hf:{name}",
        config=config,
        max_batch_size=max_batch_size,
        identity=identity,
        loader=load,
        context_limit=limit,
        reuse_head=reuse_head,
    )


def _not_loadable(name: str, exc: OSError) -> InputError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError(
        f"cannot load model {name!r}: not a local model directory and not loadable from the "
        f"Hugging Face Hub ({first})"
    )
