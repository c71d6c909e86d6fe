"""Random search: uniform over the space, never the same configuration twice."""

from __future__ import annotations

from tilewise.search.space import Config
from tilewise.search.strategies.base import Strategy


class RandomSearch(Strategy):
    name = "random"

    def ask(self) -> Config | None:
        return self.fresh(self.random_config)
