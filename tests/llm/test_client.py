"""The LLM client against an OpenAI-compatible server on 127.0.0.1, through the real `openai` package: retries,
timeouts, malformed answers, the token budget, and the key kept out of every log line and message."""

from __future__ import annotations

import logging

import pytest
from fake_openai import FakeOpenAI, Reply

from tilewise.search.llm.client import LlmClient, LlmError, LlmSettings

KEY = "sk-test-SECRET-0123456789abcdefghij"
MESSAGES = [{"role": "user", "content": "hello"}]


def _client(server: FakeOpenAI, **kw) -> LlmClient:
    kw.setdefault("max_retries", 2)
    kw.setdefault("timeout_s", 5.0)
    return LlmClient(LlmSettings(model="scripted", base_url=server.base_url, api_key=KEY, **kw))


def test_an_answer_is_read_and_its_tokens_counted():
    with FakeOpenAI(["the answer"]) as server:
        llm = _client(server)
        done = llm.complete(MESSAGES)
    assert done.text == "the answer" and llm.tokens_used == 1100 and llm.calls == 1
    [req] = server.requests
    assert req["path"] == "/v1/chat/completions" and req["json"]["model"] == "scripted"
    assert req["json"]["messages"] == MESSAGES
    assert req["headers"]["authorization"] == f"Bearer {KEY}"  # the key is sent, only where it belongs


def test_a_429_is_retried_and_then_succeeds():
    with FakeOpenAI([Reply(status=429, text="slow down"), "after the wait"]) as server:
        assert _client(server).complete(MESSAGES).text == "after the wait"
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("script", "kind", "words"),
    [
        ([Reply(status=429)] * 3, "rate_limit", "kept answering 429"),
        ([Reply(status=503)] * 3, "server", "answered HTTP 503 (after 2 retries)"),
        ([Reply(status=400, text="bad request: context too long")], "refused", "HTTP 400 (not retried)"),
        ([Reply(raw=b"<html>not json</html>")], "malformed", ""),
        ([Reply(raw=b'{"id": "x", "choices": []}')], "malformed", "has no text"),
        (["   "], "malformed", "has no text"),
    ],
)
def test_failures_become_one_line_of_the_right_kind(script, kind, words):
    with FakeOpenAI(script) as server, pytest.raises(LlmError) as caught:
        _client(server).complete(MESSAGES)
    assert caught.value.kind == kind and words in str(caught.value) and "\n" not in str(caught.value)


def test_a_server_that_does_not_answer_in_time_is_a_timeout():
    with FakeOpenAI([Reply(delay_s=1.5, text="late")]) as server, pytest.raises(LlmError) as caught:
        _client(server, timeout_s=0.3, max_retries=0).complete(MESSAGES)
    assert caught.value.kind == "timeout" and "did not answer within 0.3 s" in str(caught.value)


def test_no_server_at_the_address_is_a_connection_error():
    with FakeOpenAI() as server:
        url = server.base_url
    llm = LlmClient(LlmSettings(base_url=url, api_key=KEY, max_retries=0, timeout_s=2))
    with pytest.raises(LlmError) as caught:
        llm.complete(MESSAGES)
    assert caught.value.kind == "connection" and "is the server running?" in str(caught.value)


def test_the_token_budget_stops_the_next_call():
    with FakeOpenAI(["one", "two"]) as server:
        llm = _client(server, token_budget=1000)
        llm.complete(MESSAGES)  # 1100 tokens: over the budget once it is answered
        with pytest.raises(LlmError, match="token budget") as caught:
            llm.complete(MESSAGES)
    assert caught.value.kind == "budget" and len(server.requests) == 1


def test_settings_take_the_key_from_the_environment_and_refuse_the_hosted_api_without_one():
    s = LlmSettings.from_env(env={"OPENAI_API_KEY": "a", "TILEWISE_LLM_API_KEY": KEY})
    assert s.api_key == KEY and KEY not in repr(s)
    local = LlmSettings.from_env(base_url="http://127.0.0.1:9/v1", env={})
    assert local.api_key is None and LlmClient(local)  # a local server needs no key
    with pytest.raises(LlmError, match="set OPENAI_API_KEY") as caught:
        LlmClient(LlmSettings.from_env(env={}))
    assert caught.value.kind == "config"


def test_the_key_never_appears_in_logs_or_error_messages(caplog):
    echo = f"Incorrect API key provided: {KEY}. You can find your API key at ..."
    script = ["fine", Reply(status=401, text=echo), Reply(status=500, text=echo), Reply(status=500, text=echo)]
    caplog.set_level(logging.DEBUG)  # every logger, the openai package's and httpx's included
    messages = []
    with FakeOpenAI(script) as server:
        llm = _client(server, max_retries=1)
        llm.complete(MESSAGES)
        for _ in range(2):
            with pytest.raises(LlmError) as caught:
                llm.complete(MESSAGES)
            messages.append(str(caught.value))
    assert all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in server.requests)
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    assert caplog.records and KEY not in logged and KEY[:12] not in logged
    assert messages[0].startswith(f"{server.base_url} refused the API key (401)")
    assert "***" in messages[1] and all(KEY not in m and KEY[:12] not in m for m in messages)
