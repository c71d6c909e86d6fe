"""Exhaustive grid: every configuration in order; the reference that finds the true optimum."""

from __future__ import annotations

from search.strategies.base import Strategy


class GridSearch(Strategy):
    name = "grid"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._it = self.space.grid()

    def ask(self):
        for c in self._it:
            if self.key(c) not in self.seen and self.feasible(c):
                self.seen.add(self.key(c))
                return c
        return None
