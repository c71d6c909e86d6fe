"""What every feature module wraps its handlers in, kept apart from the server class: features import this (and
the server class only for type checking), so the imports run one way, server.py -> features -> handlers."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcInternalError

log = logging.getLogger("tilewise.lsp")
F = TypeVar("F", bound=Callable[..., Any])


def safe(default: object) -> Callable[[F], F]:
    """Wrap a feature handler so an exception is logged and answered with `default`."""

    def wrap(fn: F) -> F:
        if asyncio.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args, **kwargs):
                try:
                    return await fn(*args, **kwargs)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("%s failed", fn.__name__)
                    return default

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception:
                log.exception("%s failed", fn.__name__)
                return default

        return run  # type: ignore[return-value]

    return wrap


class Untrusted(JsonRpcInternalError):
    """A request that would build or run the operator, in a workspace the client does not trust: the request's error,
    which says why and what to do (features/trust.py reads the client's word at initialize)."""

    def __init__(self, what: str) -> None:
        super().__init__(
            message=f"{what} refused: running code from an untrusted workspace is disabled (a build and a run execute "
            "the workspace's own kernel, host code and golden); trust the workspace to run, tune or optimize"
        )
