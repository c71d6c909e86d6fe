"""Search strategies behind one interface (ask / tell). Add one by writing its module and listing it here."""

from __future__ import annotations

from tilewise.search.strategies.base import Strategy
from tilewise.search.strategies.best_of_n import BestOfN
from tilewise.search.strategies.evolutionary import Evolutionary
from tilewise.search.strategies.grid import GridSearch
from tilewise.search.strategies.random_search import RandomSearch
from tilewise.search.strategies.tpe import TPESearch

STRATEGIES: dict[str, type[Strategy]] = {
    s.name: s for s in (Evolutionary, RandomSearch, GridSearch, BestOfN, TPESearch)
}

__all__ = ["STRATEGIES", "Strategy"]
