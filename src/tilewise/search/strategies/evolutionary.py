"""The default strategy: a small evolutionary search, aware of the constraints.

Population seeded with the starting (shipped) configuration, `Strategy.seed`, and random feasible ones; tournament
selection; uniform crossover; mutation that mostly steps a knob to a neighbouring value in its domain (tiling
landscapes are smooth along one knob) and sometimes jumps; elitism keeps the best found. Infeasible children are
redrawn before any evaluation.

It learns from Unified Buffer overflows: a configuration whose knobs are all at least those of one that overflowed
asks for at least as much UB (tile sizes and buffer counts grow it; the knobs that do not are the same or larger
there too, so nothing says they shrink it), so it is predicted to overflow and never proposed.
"""

from __future__ import annotations

from tilewise.search.space import Config
from tilewise.search.strategies.base import Strategy


class Evolutionary(Strategy):
    name = "evo"
    population = 6
    tournament = 3
    elite = 2
    mutation = 0.35

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.scored: dict[tuple, tuple[dict, float]] = {}
        self.overflows: list[Config] = []  # configurations told to have overflowed the UB
        constraints = self.feasible
        self.feasible = lambda c: constraints(c) and not self.predicted_overflow(c)

    def ask(self) -> Config | None:
        if len(self.seen) < self.population:
            # Unseeded, the starting configuration is the first member; seeded, it is one already.
            if self.key(self.start) not in self.seen and self.feasible(self.start):
                self.seen.add(self.key(self.start))
                return dict(self.start)
            return self.fresh(self.random_config)
        return self.fresh(self._child) or self.fresh(self.random_config)

    def tell(self, config: Config, score: float | None, failure: str | None = None) -> None:
        if score is not None:
            self.scored[self.key(config)] = (config, score)
        elif failure == "ub_overflow":
            self.overflows.append(dict(config))

    def predicted_overflow(self, config: Config) -> bool:
        """Whether `config` is at least an overflowing configuration on every knob."""
        return any(all(config[k.name] >= bad[k.name] for k in self.space.knobs) for bad in self.overflows)

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
                i = k.domain.index(child[k.name]) if child[k.name] in k.domain else 0
                if self.rng.random() < 0.75:
                    i = min(len(k.domain) - 1, max(0, i + self.rng.choice((-1, 1))))
                else:
                    i = self.rng.randrange(len(k.domain))
                child[k.name] = k.domain[i]
        if all(child[k.name] == a[k.name] for k in self.space.knobs):  # never resubmit a parent unchanged
            k = self.rng.choice(self.space.knobs)
            child[k.name] = self.rng.choice(k.domain)
        return child
