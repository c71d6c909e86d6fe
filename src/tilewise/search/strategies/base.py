"""The interface every strategy implements: be seeded with the shipped configuration, ask for configurations, be
told their scores (lower is better) and, for a failure, its kind. A strategy keeps its own bookkeeping (what it
proposed, what scored how): the tuner only calls `seed`, `ask` and `tell`."""

from __future__ import annotations

import random
from collections.abc import Callable

from tilewise.search.space import Config, SearchSpace

Feasible = Callable[[Config], bool]


class Strategy:
    """Strategies propose; the tuner evaluates. `ask` returns None when the strategy has nothing new to offer.
    `feasible` rejects configurations the constraints rule out, so no evaluation is paid for them."""

    name = ""

    def __init__(self, space: SearchSpace, seed: int, feasible: Feasible):
        self.space = space
        self.rng = random.Random(seed)
        self.feasible = feasible
        self.seen: set[tuple] = set()  # every configuration proposed or seeded: none is proposed twice
        # where the search starts: the shipped configuration until `seed` says otherwise
        self.start: Config = space.baseline()

    def key(self, config: Config) -> tuple:
        return tuple(config[k.name] for k in self.space.knobs)

    def seed(self, config: Config, score: float | None) -> None:
        """Start from `config`, measured before the search (the shipped configuration, by the tuner): it is never
        proposed again, its score counts like any told one, and searches that work around a point work around it."""
        self.start = dict(config)
        self.seen.add(self.key(config))
        self.tell(config, score)

    def ask(self) -> Config | None:
        raise NotImplementedError

    def tell(self, config: Config, score: float | None, failure: str | None = None) -> None:
        """score: the objective (geomean µs), or None for a failed or infeasible configuration; `failure`, when the
        caller knows it, says what kind of failure (device/protocol.py's SCREEN_KINDS, a run error's kind), so a
        strategy can keep away from configurations that would fail the same way. Callers that only know the score
        leave it out."""

    def random_config(self) -> Config:
        return {k.name: self.rng.choice(k.domain) for k in self.space.knobs}

    def fresh(self, make: Callable[[], Config], tries: int = 200) -> Config | None:
        """A feasible configuration not proposed before, drawn from `make`."""
        for _ in range(tries):
            c = make()
            if self.key(c) not in self.seen and self.feasible(c):
                self.seen.add(self.key(c))
                return c
        return None
