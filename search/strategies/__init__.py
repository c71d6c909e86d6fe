"""Search strategies behind one interface (ask / tell). Add one by writing its module and listing it here."""

from __future__ import annotations

from search.strategies.base import Strategy
from search.strategies.best_of_n import BestOfN
from search.strategies.evolutionary import Evolutionary
from search.strategies.grid import GridSearch
from search.strategies.random_search import RandomSearch
from search.strategies.tpe import TPESearch

STRATEGIES: dict[str, type[Strategy]] = {
    s.name: s for s in (Evolutionary, RandomSearch, GridSearch, BestOfN, TPESearch)
}

__all__ = ["STRATEGIES", "Strategy"]
