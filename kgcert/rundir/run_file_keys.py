"""The parser of a run's flat keys: a YAML run file (run.yaml is one) with command-line flags
taking precedence, each key checked here, except the prompt knobs `PromptSettings` checks.

`RunFileKeys` is the schema of those keys and nothing else: `RunSpec.parse` groups them into
the `RunSpec` every layer reads, and `RunSpec.settings()` gives them back for run.yaml."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from kgcert.answer_format.strategies import STANDARD, STRATEGIES
from kgcert.errors import InputError
from kgcert.models.secrets import split_credentials
from kgcert.prompts.distractors import Weighting
from kgcert.rundir.suite_config import SuiteConfig
from kgcert.util import defaults
from kgcert.util.yamlfile import read_yaml

SETTINGS = ("vanilla", "distractor")
ENTITY_NAMES = ("real", "pseudonymized")  # task prompts: KG-LLM-Bench's two variants
# Not in a run's dir name, and may change between a run and its resume (specs_dirs: where
# the spec files were found; the spec hashes in the certificates say which specs were used).
UNHASHED = ("n", "batch_size", "cache", "seed_source", "run_budget", "specs_dirs",
            "prices")
NEW_FIELDS: dict[str, Any] = {"budget": "run", "extendable": False, "suite": None,
                               "until": None, "margin": None}


class SequentialConfig(BaseModel):
    """Stop a certificate early, with anytime-valid bounds, when its half-width reaches
    `half_width` or its interval clears `threshold`; `n` is then the most samples drawn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    half_width: float | None = Field(default=None, gt=0, lt=0.5)
    threshold: float | None = Field(default=None, gt=0, lt=1)


#: More samples per certificate than anyone can pay for: a larger n is a typo, refused at once.
MAX_SAMPLES = 10**8


class BudgetPart(BaseModel):
    """One limit of the run's prompt budget: characters, or tokens of a named tokenizer. A
    prompt fits the run's budget when it fits every part."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unit: Literal["characters", "tokens"]
    limit: int = Field(ge=1)
    tokenizer: str | None = None

    def describe(self) -> str:
        return (f"{self.limit} characters" if self.unit == "characters"
                else f"{self.limit} tokens ({self.tokenizer})")


BUDGET_MODES = ("run", "per-model")


class RunFileKeys(BaseModel):
    """The flat run-file keys, checked (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kg: str
    specs: tuple[str, ...] = Field(min_length=1)
    models: tuple[str, ...] = Field(min_length=1)
    model_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    settings: tuple[str, ...] = ("vanilla",)
    formats: tuple[str, ...] = ("list",)  # textualizations for task specs
    n: int = Field(default=250, ge=1)
    confidence: float = Field(default=0.95, gt=0, lt=1)
    seed: int = Field(default=defaults.SEED, ge=0)
    seed_source: Literal["given", "drawn"] = "given"  # drawn: fresh for a run without --seed
    options: int = Field(default=defaults.OPTIONS, ge=2, le=10)
    few_shot: int = defaults.FEW_SHOT  # checked by PromptSettings, the knob's one home
    batch_size: int = Field(default=16, ge=1)
    max_new_tokens: int = Field(default=128, ge=1)
    temperature: float = Field(default=0.0, ge=0)
    mode: Literal["generate", "choice"] = "generate"
    # the budget when no tokenizer measures prompts
    context_chars: int = Field(default=defaults.CONTEXT_CHARS, ge=200)
    context_tokens: int | None = Field(default=None, ge=100)  # cap on a tokenizer budget
    # "run": one budget for every model (the user's, N or N:TOKENIZER, else the tightest that
    # fits every model), resolved at start into `run_budget`; "per-model": each its own.
    budget: str = "run"
    run_budget: tuple[BudgetPart, ...] | None = None
    extendable: bool = False  # declared before the first answer: n may grow later
    sequential: SequentialConfig | None = None
    simultaneous: bool = False  # Bonferroni over all certificates of the run
    baseline: int = Field(default=0, ge=0)  # static prompts per spec (the paper uses 50)
    cache: bool = True
    # Ablations: each strategy and each entity-name variant is a setting of its own, paired
    # by prompt index with the standard prompt (see kgcert.prompts.strategy).
    strategies: tuple[str, ...] = (STANDARD,)
    system_prompt: str | None = None  # the `system` strategy's system message
    reasoning_tokens: int = Field(default=384, ge=1)  # cot: + this, tot: + twice this
    entity_names: tuple[str, ...] = ("real",)  # task specs: real and/or pseudonymized
    distractor_weighting: Weighting = "tail"  # entity specs; the names are prompts' own
    specs_dirs: tuple[str, ...] = ()  # --specs-dir, as absolute paths
    # dollars per million prompt / completion tokens, by model: what certificates' cost says
    prices: dict[str, dict[str, float]] = Field(default_factory=dict)
    suite: SuiteConfig | None = None  # one certificate for the mixture of `specs`
    # compare the models as they answer and stop each (spec, setting) once decided
    until: Literal["ranked", "best"] | None = None
    margin: float | None = Field(default=None, gt=0, lt=1)  # --until: "within margin" claims

    @field_validator("model_options")
    @classmethod
    def _no_passwords(cls, options: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        # run.yaml keeps these settings; a secret belongs in the environment
        for model, values in options.items():
            for name, value in values.items():
                texts = (list(value) if isinstance(value, list | tuple)  # base_urls
                         else value.split(",") if isinstance(value, str) else [])
                # a user name alone is a secret too: `http://sk-...@host` carries a token
                if any(isinstance(text, str) and split_credentials(text.strip()).basic_token()
                       is not None for text in texts):
                    raise ValueError(
                        f"{model} option {name} holds a URL with a user name or password (a "
                        "token given as `TOKEN@host` is one), which would be written to "
                        "run.yaml; give that URL through the environment instead "
                        "(OPENAI_BASE_URL, OPENAI_BASE_URLS or GOOGLE_GEMINI_BASE_URL)")
        return options

    @field_validator("prices", mode="before")
    @classmethod
    def _prices(cls, prices: Any) -> Any:
        from kgcert.certify.cost import price_entry

        if not isinstance(prices, dict):
            raise ValueError("prices must map models to IN/OUT dollars per million tokens")
        return {str(model): price_entry(value, str(model)) for model, value in prices.items()}

    @field_validator("n", "baseline")
    @classmethod
    def _samples_capped(cls, count: int) -> int:
        if count > MAX_SAMPLES:
            raise ValueError(f"{count:,} samples per certificate is above the cap of "
                             f"{MAX_SAMPLES:,}; a typo?")
        return count

    @field_validator("budget")
    @classmethod
    def _known_budget(cls, budget: str) -> str:
        if budget in BUDGET_MODES:
            return budget
        limit, _, tokenizer = budget.partition(":")
        if not limit.isdigit() or int(limit) < 1 or (_ and not tokenizer.strip()):
            raise ValueError(f"budget must be run, per-model, N (characters) or N:TOKENIZER "
                             f"(tokens of that tokenizer), got {budget!r}")
        return budget

    @field_validator("settings")
    @classmethod
    def _known_settings(cls, settings: tuple[str, ...]) -> tuple[str, ...]:
        for setting in settings:
            if setting not in SETTINGS:
                raise ValueError(f"unknown setting {setting!r} (known: {', '.join(SETTINGS)})")
        return settings

    @field_validator("strategies")
    @classmethod
    def _known_strategies(cls, strategies: tuple[str, ...]) -> tuple[str, ...]:
        for strategy in strategies:
            if strategy not in STRATEGIES:
                raise ValueError(f"unknown strategy {strategy!r} (known: "
                                 f"{', '.join(STRATEGIES)})")
        if len(set(strategies)) != len(strategies):
            raise ValueError("a strategy is named twice")
        return strategies

    @field_validator("entity_names")
    @classmethod
    def _known_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        for name in names:
            if name not in ENTITY_NAMES:
                raise ValueError(f"unknown entity names {name!r} (known: "
                                 f"{', '.join(ENTITY_NAMES)})")
        return tuple(dict.fromkeys(names))

    @model_validator(mode="after")
    def _strategies_fit(self) -> RunFileKeys:
        has_system = bool((self.system_prompt or "").strip())
        if "system" in self.strategies and not has_system:
            raise ValueError("strategy system needs a system prompt (--system-prompt TEXT or "
                             "@FILE, or system_prompt in the run file)")
        if has_system and "system" not in self.strategies:
            raise ValueError("a system prompt is given but no strategy uses it: add "
                             "--strategy system (with --strategy standard to compare the two)")
        reasoning = [s for s in self.strategies if s in ("cot", "tot")]
        if reasoning and self.mode == "choice":
            raise ValueError(f"strategy {reasoning[0]} needs --mode generate: choice scoring "
                             "reads the option number without letting the model reason")
        return self

    @model_validator(mode="after")
    def _suite_fits(self) -> RunFileKeys:
        if self.suite is not None and self.suite.specs != self.specs:
            raise ValueError(f"suite {self.suite.name} lists specs "
                             f"{', '.join(self.suite.specs)}, not the run's specs")
        return self

    @model_validator(mode="after")
    def _comparison_fits(self) -> RunFileKeys:
        if self.margin is not None and self.until is None:
            raise ValueError("margin goes with until (ranked or best)")
        if self.until is not None and len(self.models) < 2:
            raise ValueError(f"until {self.until} compares models: give at least two")
        if self.until is not None and self.sequential and self.sequential.half_width:
            raise ValueError(f"until {self.until} stops when the comparisons are decided; "
                             "half_width stops each certificate on its own width: give one")
        return self

    def fingerprint(self) -> str:
        """Identifies what the run samples and asks; n may grow on a later resume."""
        body = self.model_dump(mode="json", exclude=set(UNHASHED))
        if self.suite is not None:  # weights counted from the KG name no folder of their own
            body["suite"] = self.suite.stated().model_dump(mode="json")
        for name, default in NEW_FIELDS.items():  # fields added later hash as before at default
            if body.get(name) == default:
                body.pop(name, None)
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def _first_error(error: ValidationError, source: str) -> InputError:
    first = error.errors()[0]
    message = str(first["msg"]).removeprefix("Value error, ")
    where = ".".join(str(p) for p in first["loc"])
    if first["type"] == "missing" and len(first["loc"]) == 1:  # a setting nobody gave
        name = str(first["loc"][0])
        flag = "--" + {"specs": "spec", "models": "model"}.get(name, name).replace("_", "-")
        return InputError(f"{source}: no {where} given: pass {flag} (e.g. {flag} primekg, the "
                          "name `kgcert load` gave the KG) or set it in the run file"
                          if where == "kg" else f"{source}: no {where} given: pass {flag} "
                          "or set it in the run file")
    return InputError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def load_run_file_keys(path: Path | None, overrides: dict[str, Any]) -> RunFileKeys:
    """The run file's settings with every given flag on top (None flags are not given)."""
    data: dict[str, Any] = {}
    if path is not None:
        loaded = read_yaml(path, "run file")
        if not isinstance(loaded, dict):
            raise InputError(f"run file {path} must be a YAML mapping")
        data.update(loaded)
    data.update({k: v for k, v in overrides.items() if v not in (None, ())})
    return run_file_keys_from(data, str(path) if path else "run settings")


def run_file_keys_from(data: dict[str, Any], source: str) -> RunFileKeys:
    """The run-file keys of `data` checked (a bad one is an InputError naming `source`)."""
    if isinstance(data.get("system_prompt"), str):
        data = {**data, "system_prompt": read_system_prompt(data["system_prompt"])}
    try:
        return RunFileKeys.model_validate(data)
    except ValidationError as error:
        raise _first_error(error, source) from None


SYSTEM_PROMPT_MAX_BYTES = 64 * 1024


def read_system_prompt(value: str) -> str:
    """A system prompt given as text, or as `@FILE` for the text of that file; at most
    SYSTEM_PROMPT_MAX_BYTES either way (a system message, not a corpus: `@/dev/zero` or a
    wrong file must not be read whole)."""
    if not value.startswith("@"):
        if len(value.encode("utf-8", "surrogatepass")) > SYSTEM_PROMPT_MAX_BYTES:
            raise InputError(f"the system prompt is over {SYSTEM_PROMPT_MAX_BYTES // 1024} KiB; "
                             "a system message is shorter")
        return value
    path = Path(value[1:]).expanduser()
    try:
        with path.open("rb") as handle:
            data = handle.read(SYSTEM_PROMPT_MAX_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"system prompt file {path} not found") from None
    except OSError as error:
        raise InputError(f"cannot read system prompt file {path}: {error}") from None
    if len(data) > SYSTEM_PROMPT_MAX_BYTES:
        raise InputError(f"system prompt file {path} is over {SYSTEM_PROMPT_MAX_BYTES // 1024} "
                         "KiB; a system message is shorter (a wrong file?)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"cannot read system prompt file {path}: {error}") from None
    if not text.strip():
        raise InputError(f"system prompt file {path} is empty")
    return text.strip()
