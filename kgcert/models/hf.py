"""Hugging Face transformers runner: batched greedy/sampled generation and choice scoring.

An :class:`HFModel` is built in layers, one module each: rendering and tokenizing
(:mod:`~kgcert.models.hf_text`), length-sorted padded batches with their out-of-memory back-off
(:mod:`~kgcert.models.hf_batches`), the shared head's cache (:mod:`~kgcert.models.hf_heads`),
choice scoring (:mod:`~kgcert.models.hf_choice`), and here the weights and the generation
loop; :mod:`~kgcert.models.hf_load` loads one (``create``).
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
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
from transformers import PreTrainedModel, StoppingCriteria, StoppingCriteriaList

from kgcert.errors import InputError
from kgcert.models.base import (
    GenerationConfig,
    ModelRequest,
    ModelResponse,
    StopRule,
    report_answers,
)
from kgcert.models.headcache import Head, HeadCache
from kgcert.models.hf_choice import ChoiceScoring

log = logging.getLogger(__name__)


class StopWhen(StoppingCriteria):
    """Stops each sequence of a batch on its own once ``rule`` holds for its text so far,
    asking it only when a line ends (a decode of the whole reply at every step would cost
    more than the step)."""

    def __init__(self, tokenizer: Any, prompt_len: int, rule: StopRule,
                 on_stop: Callable[[], None] = lambda: None) -> None:
        self.tokenizer = tokenizer
        self.prompt_len = prompt_len
        self.rule = rule
        self.stopped_at: dict[int, int] = {}
        self.on_stop = on_stop  # a row's reply is complete (progress, before the batch ends)

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
                if self.rule(text):
                    self.stopped_at[row] = generated.shape[1]
                    done[row] = True
                    self.on_stop()
        return done  # type: ignore[return-value]


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


class HFModel(ChoiceScoring):
    """A causal LM and its tokenizer; use :func:`kgcert.models.hf_load.create` or
    :meth:`from_objects`."""

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
        self.batch_size = max_batch_size
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
    @staticmethod
    def _context_limit(model: PreTrainedModel) -> int | None:
        limit = getattr(model.config, "max_position_embeddings", None)
        return int(limit) if limit else None
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
        stopper = StopWhen(self.tokenizer, width, config.stop_when or (lambda text: False),
                           lambda: report_answers(self, 1))
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
        if config.stop_when is not None:
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
