"""How an ``hf`` model scores a multiple-choice prompt without generating: one forward pass
gives the distribution over the option numbers' tokens after the answer prefix."""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from kgcert.errors import InputError
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse, report_answers
from kgcert.models.headattention import split_head
from kgcert.models.hf_heads import HeadReuse


class ChoiceScoring(HeadReuse):
    """Choice mode for a model that says, through ``_starting``, when computing starts."""

    _starting: Callable[[], None]

    @property
    def last_logits_only(self) -> dict[str, int]:
        """Choice scoring reads the last position's logits alone; models that can skip the
        others save a (batch x length x vocabulary) tensor, gigabytes at real prompt lengths."""
        accepted = inspect.signature(self.model.forward).parameters
        return {"logits_to_keep": 1} if "logits_to_keep" in accepted else {}

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

