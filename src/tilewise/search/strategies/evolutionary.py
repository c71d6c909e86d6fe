"""The default strategy: a small evolutionary search, aware of the constraints.

Population seeded with the starting (shipped) configuration, `Strategy.seed`, and its neighbours near and far;
tournament selection; uniform crossover; mutation that steps a knob along its domain by a log-uniform number of
places (tiling landscapes are smooth along one knob: mostly a neighbouring value, now and then a jump across a wide
domain); elitism keeps the best found. Infeasible children are redrawn before any evaluation.

It learns from Unified Buffer overflows, along the knobs whose effect on the UB the data flow knows
(`KnobSpec.ub_effect`): a configuration that asks at least as much UB as one that overflowed on every such knob
(a tile no smaller, a divisor no larger) and equals it on the others is predicted to overflow and not proposed.
A knob whose effect is unknown (a core count that also sizes nothing, a buffer count that also divides the tile)
must be equal: its other values are another neighbourhood, never pruned by this one. And a prediction is only a
guess: a configuration that overflows cannot predict anything about a region where a configuration was seen to
fit, so an overflow whose region holds one that fit prunes no more than itself. When the guesses rule out all
that `ask` can find, `Strategy.propose` still offers whatever the constraints allow.
"""

from __future__ import annotations

from tilewise.search.space import Config
from tilewise.search.strategies.base import Strategy

# Screening refusals that say the configuration's buffers fitted: the screening checks the UB before these
# (device/emulator/screen.py's verdict). A configuration that scored fitted too.
_FITTED = frozenset({"unaligned_copy", "block_dim"})


class Evolutionary(Strategy):
    name = "evo"
    population = 6
    tournament = 3
    elite = 2
    mutation = 0.35

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.scored: dict[tuple, tuple[dict, float]] = {}
        self.overflows: list[Config] = []  # configurations told to have overflowed the UB, each a predictor
        self.fitted: list[Config] = []  # configurations seen to fit the UB (measured, or refused for another reason)
        constraints = self.constraints
        self.feasible = lambda c: constraints(c) and not self.predicted_overflow(c)

    def ask(self) -> Config | None:
        if len(self.seen) < self.population:
            # Unseeded, the starting configuration is the first member; seeded, it is one already. The others are
            # its neighbours, near and far: on a wide domain (a tile count fitted to the UB runs from 2 to tens of
            # thousands) uniform draws land mostly where the tiles are tiny, far from the shipped tiling's region.
            if self.key(self.start) not in self.seen and self.feasible(self.start):
                self.seen.add(self.key(self.start))
                return dict(self.start)
            return self.fresh(self._neighbour) or self.fresh(self.random_config)
        return self.fresh(self._child) or self.fresh(self.random_config)

    def _stepped(self, domain: list[int], value: int) -> int:
        """`value` moved along `domain` by a step whose length is log-uniform between one place and the whole
        domain: mostly to a neighbour, sometimes far, as often at every scale."""
        i = domain.index(value) if value in domain else 0
        step = int(len(domain) ** self.rng.random())
        return domain[min(len(domain) - 1, max(0, i + self.rng.choice((-1, 1)) * max(1, step)))]

    def _neighbour(self) -> Config:
        """The starting configuration with each knob moved (`_stepped`) with probability 1/2, one at least."""
        c = dict(self.start)
        moved = [k for k in self.space.knobs if self.rng.random() < 0.5] or [self.rng.choice(self.space.knobs)]
        for k in moved:
            c[k.name] = self._stepped(k.domain, c[k.name])
        return c

    def tell(self, config: Config, score: float | None, failure: str | None = None) -> None:
        if score is not None:
            self.scored[self.key(config)] = (config, score)
        if failure == "ub_overflow":
            if not any(self._covers(config, fit) for fit in self.fitted):
                self.overflows.append(dict(config))
        elif score is not None or failure in _FITTED:
            self.fitted.append(dict(config))
            # an overflow whose region holds this configuration predicted wrongly: it keeps only its own point
            self.overflows = [bad for bad in self.overflows if not self._covers(bad, config)]

    def predicted_overflow(self, config: Config) -> bool:
        """Whether `config` asks at least as much UB as a configuration that overflowed (see the module)."""
        return any(self._covers(bad, config) for bad in self.overflows)

    def _covers(self, bad: Config, config: Config) -> bool:
        """Whether `config` lies in the region an overflow of `bad` predicts to overflow too."""
        for k in self.space.knobs:
            v, b = config[k.name], bad[k.name]
            if not (v >= b if k.ub_effect > 0 else v <= b if k.ub_effect < 0 else v == b):
                return False
        return True

    def _ranked(self) -> list[tuple[dict, float]]:
        return sorted(self.scored.values(), key=lambda cs: cs[1])

    def _pick(self) -> dict:
        ranked = self._ranked()
        if not ranked:
            return self.random_config()
        pool = ranked[: max(self.population, self.elite)]
        contenders = [self.rng.choice(pool) for _ in range(self.tournament)]
        return min(contenders, key=lambda cs: cs[1])[0]

    def _child(self) -> dict:
        a, b = self._pick(), self._pick()
        child = {k.name: (a if self.rng.random() < 0.5 else b)[k.name] for k in self.space.knobs}
        for k in self.space.knobs:
            if self.rng.random() < self.mutation:
                child[k.name] = self._stepped(k.domain, child[k.name])
        if all(child[k.name] == a[k.name] for k in self.space.knobs):  # never resubmit a parent unchanged
            k = self.rng.choice(self.space.knobs)
            child[k.name] = self.rng.choice(k.domain)
        return child
