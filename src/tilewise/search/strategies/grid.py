"""Exhaustive grid: every configuration in order; the reference that finds the true optimum."""

from __future__ import annotations

from tilewise.search.space import Config, SearchSpace
from tilewise.search.strategies.base import Feasible, Strategy


class GridSearch(Strategy):
    name = "grid"

    def __init__(self, space: SearchSpace, seed: int, feasible: Feasible) -> None:
        super().__init__(space, seed, feasible)
        self._it = self.space.grid()

    def ask(self) -> Config | None:
        for c in self._it:
            if self.key(c) not in self.seen and self.feasible(c):
                self.seen.add(self.key(c))
                return c
        return None
