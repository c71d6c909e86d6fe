"""Random search: uniform over the space, never the same configuration twice."""

from __future__ import annotations

from search.space import Config
from search.strategies.base import Strategy


class RandomSearch(Strategy):
    name = "random"

    def ask(self) -> Config | None:
        return self.fresh(self.random_config)
