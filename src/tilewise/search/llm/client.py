"""One chat completion at a time from any OpenAI-compatible endpoint: the hosted API, or a local server (llama.cpp's
server, vLLM, Ollama's OpenAI endpoint) by base URL, through the `openai` package.

What this room adds to the package:
- the settings from flags and the environment (`OPENAI_API_KEY`, or `TILEWISE_LLM_API_KEY` which wins), with one
  clear line when something is missing;
- a token budget per run: every answer's usage is counted, and a call that would start past the budget is refused;
- errors as `LlmError` with one line a user can act on, and the key scrubbed from every message (the package's
  errors quote response bodies, and a proxy may echo a header back). Retries of 429 and 5xx with exponential
  backoff and the `Retry-After` header are the package's own (`max_retries`).
The key is never logged: this module logs nothing but counts, and `redact` is applied to anything it raises.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

KEY_VARIABLES = ("TILEWISE_LLM_API_KEY", "OPENAI_API_KEY")  # the first one set wins
DEFAULT_MODEL = "gpt-4o-mini"
# A local server needs no key, but the package insists on one: this placeholder is what it then sends.
NO_KEY = "not-needed"


class LlmError(Exception):
    """A completion that could not be had: `kind` is one of config, timeout, rate_limit, server, connection,
    malformed, budget, refused; the message is one line with the key scrubbed from it."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass
class LlmSettings:
    model: str = DEFAULT_MODEL
    base_url: str | None = None  # None: the hosted API (or OPENAI_BASE_URL, which the package reads)
    api_key: str | None = field(default=None, repr=False)  # repr=False: a settings dump never shows it
    timeout_s: float = 120.0
    max_retries: int = 3
    token_budget: int = 200_000  # prompt and completion tokens over a whole run (a rewrite, an optimize)
    max_answer_tokens: int = 8_000
    temperature: float = 0.2

    @classmethod
    def from_env(
        cls, *, model: str | None = None, base_url: str | None = None, env: dict[str, str] | None = None, **kw
    ) -> LlmSettings:
        """Settings from flags, with the key from the environment."""
        env = dict(os.environ) if env is None else env
        key = next((env[v] for v in KEY_VARIABLES if env.get(v)), None)
        return cls(model=model or env.get("TILEWISE_LLM_MODEL") or DEFAULT_MODEL, base_url=base_url, api_key=key, **kw)

    def redact(self, text: str) -> str:
        """`text` with the key replaced (also a long key's prefix, as some servers truncate what they echo)."""
        key = self.api_key
        if not key or key == NO_KEY:
            return text
        text = text.replace(key, "***")
        return text.replace(key[:12], "***") if len(key) > 16 else text


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int


class LlmClient:
    """The endpoint, with the run's token count. `complete(messages)` returns the answer's text or raises LlmError."""

    def __init__(self, settings: LlmSettings):
        self.settings = settings
        self.tokens_used = 0
        self.calls = 0
        if not settings.api_key and not settings.base_url:
            raise LlmError(
                "config",
                "no API key for the hosted endpoint: set OPENAI_API_KEY (or TILEWISE_LLM_API_KEY; in VS Code, "
                "'tilewise: Set LLM API key'), or point the base URL (--llm-base-url, or the tilewise.llm.baseUrl "
                "setting) at a local server such as http://127.0.0.1:8080/v1",
            )
        import openai

        self._openai = openai
        self._client = openai.OpenAI(
            api_key=settings.api_key or NO_KEY,
            base_url=settings.base_url,
            timeout=settings.timeout_s,
            max_retries=settings.max_retries,
        )

    @property
    def tokens_left(self) -> int:
        return max(0, self.settings.token_budget - self.tokens_used)

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        if self.tokens_used >= self.settings.token_budget:
            raise LlmError(
                "budget", f"the run's token budget ({self.settings.token_budget:,}) is spent; raise --llm-token-budget"
            )
        self.calls += 1
        try:
            response = self._client.chat.completions.create(
                model=self.settings.model,
                messages=messages,  # type: ignore[arg-type]  # (plain role/content dicts, as the API takes them)
                max_tokens=min(self.settings.max_answer_tokens, max(256, self.tokens_left)),
                temperature=self.settings.temperature,
            )
        except Exception as exc:  # noqa: BLE001 - every failure becomes one scrubbed line
            raise self._error(exc) from None
        try:
            text = response.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            text = None
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        answer = int(getattr(usage, "completion_tokens", 0) or 0)
        if not prompt and not answer:  # a server that reports no usage: count roughly, 4 characters a token
            prompt = sum(len(m.get("content", "")) for m in messages) // 4
            answer = len(text or "") // 4
        self.tokens_used += prompt + answer
        log.info("completion %d: %d prompt + %d answer tokens", self.calls, prompt, answer)
        if not isinstance(text, str) or not text.strip():
            raise LlmError("malformed", f"the endpoint's answer has no text (model {self.settings.model})")
        return Completion(text, prompt, answer)

    def _error(self, exc: Exception) -> LlmError:
        oa = self._openai
        where = self.settings.base_url or "the hosted API"
        retries = f"after {self.settings.max_retries} retries"
        if isinstance(exc, oa.APITimeoutError):
            kind, msg = "timeout", f"{where} did not answer within {self.settings.timeout_s:g} s ({retries})"
        elif isinstance(exc, oa.RateLimitError):
            kind, msg = "rate_limit", f"{where} kept answering 429 Too Many Requests ({retries}); wait, or lower use"
        elif isinstance(exc, oa.AuthenticationError):
            kind, msg = "config", f"{where} refused the API key (401): check OPENAI_API_KEY / TILEWISE_LLM_API_KEY"
        elif isinstance(exc, oa.NotFoundError):
            kind, msg = (
                "config",
                f"{where} has no model '{self.settings.model}' or no chat endpoint (404): check --llm-model",
            )
        elif isinstance(exc, oa.APIStatusError):
            status = exc.status_code
            kind = "server" if status >= 500 else "refused"
            msg = f"{where} answered HTTP {status} ({retries if status >= 500 else 'not retried'}): {_first_line(exc)}"
        elif isinstance(exc, oa.APIConnectionError):
            kind, msg = "connection", f"cannot reach {where} ({retries}): is the server running?"
        elif isinstance(exc, oa.APIResponseValidationError | ValueError | KeyError | TypeError):
            kind, msg = "malformed", f"{where} sent a response that is not a chat completion: {_first_line(exc)}"
        else:
            kind, msg = "malformed", f"{where}: {type(exc).__name__}: {_first_line(exc)}"
        return LlmError(kind, self.settings.redact(msg))


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]
