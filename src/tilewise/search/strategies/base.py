"""The interface every strategy implements: be seeded with the shipped configuration, ask for configurations, be
told their scores (lower is better) and, for a failure, its kind. A strategy keeps its own bookkeeping (what it
proposed, what scored how): the tuner only calls `seed`, `propose` and `tell`.

`propose` is `ask`, or, when the strategy has nothing to offer (its model of the space rules everything out, or its
draws keep landing on configurations already tried), any configuration not yet proposed that the constraints
allow. A strategy's own predictions (a neighbourhood it guesses will fail) steer `ask`; they never end a search
that still has budget and untried configurations nobody has refused.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tilewise.search.space import Config, SearchSpace

Feasible = Callable[[Config], bool]

# Up to this many configurations, the last resort of `propose` walks the whole space rather than drawing at random.
ENUMERABLE = 200_000


class Strategy:
    """Strategies propose; the tuner evaluates. `ask` returns None when the strategy has nothing new to offer.
    `feasible` rejects configurations the constraints rule out, so no evaluation is paid for them."""

    name = ""

    def __init__(self, space: SearchSpace, seed: int, feasible: Feasible):
        self.space = space
        self.rng = random.Random(seed)
        # What rules a configuration out for certain (the static checks); a subclass may narrow `feasible` with
        # its own guesses, never `constraints`.
        self.constraints = feasible
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

    def propose(self) -> Config | None:
        """What the tuner measures next: `ask`'s proposal, else any configuration not proposed before that the
        constraints allow (None only when there is none left)."""
        return self.ask() or self.untried()

    def untried(self) -> Config | None:
        """A configuration not proposed before that the constraints allow, whatever the strategy predicts of it:
        drawn at random first, then (a space small enough to walk) the first one left in grid order."""
        found = self.fresh(self.random_config, feasible=self.constraints)
        if found is not None or self.space.size() > ENUMERABLE:
            return found
        for c in self.space.grid():
            if self.key(c) not in self.seen and self.constraints(c):
                self.seen.add(self.key(c))
                return c
        return None

    def tell(self, config: Config, score: float | None, failure: str | None = None) -> None:
        """score: the objective (geomean µs), or None for a failed or infeasible configuration; `failure`, when the
        caller knows it, says what kind of failure (device/protocol.py's SCREEN_KINDS, a run error's kind), so a
        strategy can keep away from configurations that would fail the same way. Callers that only know the score
        leave it out."""

    def random_config(self) -> Config:
        return {k.name: self.rng.choice(k.domain) for k in self.space.knobs}

    def fresh(self, make: Callable[[], Config], tries: int = 200, feasible: Feasible | None = None) -> Config | None:
        """A configuration not proposed before, drawn from `make`, that `feasible` (the strategy's own test unless
        given) allows."""
        allowed = feasible or self.feasible
        for _ in range(tries):
            c = make()
            if self.key(c) not in self.seen and allowed(c):
                self.seen.add(self.key(c))
                return c
        return None
