"""Every dtype path the OpDef declares, as cases a tuned configuration must still run correctly on.

An OpDef's `DataType({...})` lists, read position by position across its inputs and outputs, are the dtype
combinations the operator accepts (a list of one is that tensor's dtype in every combination). A tune measures the
cases it was given, often of one dtype, and a tiling constant moved there can break another dtype's path: a byte
count right for halves only, a tile that fits the UB at two bytes an element and not at four. So each declared
combination the tuned cases leave out gets a check case: the manifest's case of that combination when it has one,
else the first tuned case with its tensors in that combination's dtypes (its name with `@<dtypes>` added).

A candidate is accepted as the best only once it runs correct on every check case (`DtypePaths.problem`) that the
shipped configuration itself runs correct on: a path the shipped configuration already fails is reported, not held
against anyone. Check cases are run, not timed: the objective stays the tuned cases' time.
"""

from __future__ import annotations

from collections.abc import Callable

from tilewise.analysis.manifest import Case
from tilewise.analysis.model import OperatorModel
from tilewise.analysis.operator import Operator
from tilewise.search.space import Config

Combination = dict[str, str]  # tensor name -> dtype
# (case, configuration, whether it is the shipped one) -> what is wrong with that run, None when it ran correct
RunCheck = Callable[[Case, Config, bool], str | None]


def declared_combinations(model: OperatorModel) -> list[Combination]:
    """The dtype combinations the OpDef declares, in its order (empty without an OpDef or dtypes)."""
    if model.opdef is None:
        return []
    tensors = [t for t in [*model.opdef.inputs, *model.opdef.outputs] if t.dtypes]
    width = max((len(t.dtypes) for t in tensors), default=0)
    out: list[Combination] = []
    for i in range(width):
        combo = {t.name: t.dtypes[i] if len(t.dtypes) > i else t.dtypes[0] for t in tensors}
        if combo not in out:
            out.append(combo)
    return out


def _combination_of(case: Case, combos: list[Combination]) -> Combination | None:
    """The declared combination a case runs (its inputs' dtypes, and its outputs' where it gives them)."""
    for combo in combos:
        inputs = all(combo.get(_base(n), spec.dtype) == spec.dtype for n, spec in case.inputs.items())
        outputs = all(spec.dtype is None or combo.get(n, spec.dtype) == spec.dtype for n, spec in case.outputs.items())
        if inputs and outputs:
            return combo
    return None


def _base(name: str) -> str:
    """A case input's OpDef tensor: `x[1]` is a tensor of the list input `x`."""
    return name.split("[", 1)[0]


def check_cases(op: Operator, cases: list[Case]) -> list[Case]:
    """One case per declared dtype combination the tuned `cases` leave out (see the module)."""
    combos = declared_combinations(op.model)
    if len(combos) < 2 or not cases:
        return []
    covered = [c for c in (_combination_of(case, combos) for case in cases) if c is not None]
    manifest = op.manifest.cases if op.manifest else []
    out = []
    for combo in combos:
        if combo in covered:
            continue
        own = next((m for m in manifest if _combination_of(m, [combo]) is not None and _names_fit(m, cases[0])), None)
        out.append(own if own is not None else _made_up(cases[0], combo))
    return out


def _names_fit(case: Case, like: Case) -> bool:
    """Whether a manifest case gives the tensors the tuned case gives (a case of another input set is no check)."""
    return set(case.inputs) == set(like.inputs)


def _made_up(base: Case, combo: Combination) -> Case:
    inputs = {
        name: spec.model_copy(update={"dtype": combo.get(_base(name), spec.dtype)})
        for name, spec in base.inputs.items()
    }
    outputs = {
        name: spec.model_copy(update={"dtype": combo[name]}) if spec.dtype is not None and name in combo else spec
        for name, spec in base.outputs.items()
    }
    tag = ",".join(sorted(set(combo.values())))
    return base.model_copy(update={"name": f"{base.name}@{tag}", "inputs": inputs, "outputs": outputs})


class DtypePaths:
    """The check cases of a tune, and what each candidate that would become the best does on them."""

    def __init__(self, cases: list[Case], run: RunCheck):
        self.cases = cases
        self.run = run
        self.required: list[Case] | None = None  # the check cases the shipped configuration runs correct on
        self.broken: dict[str, str] = {}  # the check cases the shipped configuration fails, with why

    def problem(self, config: Config, shipped: Config) -> str | None:
        """What is wrong with `config` on the first check case it fails (None: it runs correct on every one the
        shipped configuration does). The shipped configuration is run on them first, once."""
        if self.required is None:
            self.required = []
            for case in self.cases:
                found = self.run(case, shipped, True)
                if found is None:
                    self.required.append(case)
                else:
                    self.broken[case.name] = found
        for case in self.required:
            found = self.run(case, config, False)
            if found is not None:
                return f"{case.name}: {found} (a dtype path the OpDef declares; the shipped tiling runs it correct)"
        return None
