"""An OpenAI-compatible chat endpoint on 127.0.0.1 for the tests, answering from a script.

Each POST to /v1/chat/completions takes the next scripted reply:
- a string: a 200 chat completion with that text as the message;
- `Reply(status=429)` (or 500, ...): that status with an error body and `Retry-After: 0`;
- `Reply(delay_s=2, text=...)`: the answer after a delay (a timeout when the client waits less);
- `Reply(raw=b"...")`: a 200 with that body as it is (a malformed response).
The requests received (path, headers, JSON body) are kept in `requests`, so a test can read what was sent.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    text: str | None = None
    status: int = 200
    delay_s: float = 0.0
    raw: bytes | None = None


class FakeOpenAI:
    def __init__(self, script: list[str | Reply] | None = None):
        self.script: list[str | Reply] = list(script or [])
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length)
                with fake._lock:
                    fake.requests.append(
                        {
                            "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "json": json.loads(body or b"{}"),
                        }
                    )
                    reply = fake.script.pop(0) if fake.script else Reply(status=500, text="script exhausted")
                if isinstance(reply, str):
                    reply = Reply(text=reply)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.raw is not None:
                    self._send(200, reply.raw)
                elif reply.status != 200:
                    err = {"error": {"message": reply.text or "scripted error", "type": "scripted"}}
                    self._send(reply.status, json.dumps(err).encode(), {"retry-after-ms": "10", "retry-after": "0"})
                else:
                    self._send(200, json.dumps(_completion(reply.text or "")).encode())

            def _send(self, status, data, headers=None):
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _completion(text: str) -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100},
    }
