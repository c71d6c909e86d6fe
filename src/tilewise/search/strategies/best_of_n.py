"""Best-of-N: N independent perturbations of the starting configuration (the shipped one, `Strategy.seed`; each
knob moved with probability 1/2), the best kept. What a developer does by hand: try variations of what works."""

from __future__ import annotations

from tilewise.search.space import Config
from tilewise.search.strategies.base import Strategy


class BestOfN(Strategy):
    name = "best-of-n"

    def ask(self) -> Config | None:
        base = self.start

        def perturb() -> Config:
            c = dict(base)
            for k in self.space.knobs:
                if self.rng.random() < 0.5:
                    c[k.name] = self.rng.choice(k.domain)
            return c

        return self.fresh(perturb)
