"""The examples: manifests validate, goldens run on every case, slow variants embody their motif."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from paths import EXAMPLES, example_dirs

from tilewise.analysis.lint import lint
from tilewise.analysis.manifest import load_manifest
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rules import RULES_BY_ID

DTYPES = {"float16": np.float16, "float32": np.float32, "int32": np.int32, "int8": np.int8, "bool": np.bool_}
FAST = [d for d in example_dirs() if "_slow_" not in d.name]
SLOW = [d for d in example_dirs() if "_slow_" in d.name]


def test_enough_examples():
    assert len([d for d in FAST if (d / "op_host").is_dir()]) >= 12
    assert len(SLOW) >= 6
    assert any(load_operator(d).model.layout == "invocation" for d in FAST)


def _golden(path, name):
    spec = importlib.util.spec_from_file_location(f"golden_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


@pytest.mark.parametrize("root", example_dirs(), ids=lambda p: p.name)
def test_manifest_and_golden(root):
    m = load_manifest(root / "tilewise.toml")
    model = load_operator(root).model
    assert m.cases and m.golden is not None
    file, fn = m.golden.function.split(":")
    golden = _golden(root / file, fn)
    rng = np.random.default_rng(0)
    for case in m.cases:
        assert list(case.inputs) == [t.name for t in model.inputs], "inputs are listed in OpDef order"
        arrays = [rng.uniform(0.1, 1.0, spec.shape).astype(DTYPES[spec.dtype]) for spec in case.inputs.values()]
        result = golden(*arrays, **case.attrs)
        outputs = result if isinstance(result, tuple) else (result,)
        assert len(outputs) == len(model.outputs)
        assert all(np.all(np.isfinite(np.asarray(o, dtype=np.float64))) for o in outputs)


@pytest.mark.parametrize("root", SLOW, ids=lambda p: p.name)
def test_slow_variant_names_a_twin_and_its_motif_rule_fires_only_there(root):
    m = load_manifest(root / "tilewise.toml")
    twin = (root / m.operator.twin).resolve()
    assert twin.is_dir() and m.operator.motif in RULES_BY_ID
    slow = {f.rule for f in lint(load_operator(root))}
    fast = {f.rule for f in lint(load_operator(twin))}
    assert m.operator.motif in slow
    assert m.operator.motif not in fast, f"{twin.name} should not need the {m.operator.motif} fix"


def test_examples_use_the_public_operator_idioms():
    text = "\n".join(p.read_text() for p in EXAMPLES.rglob("*.cpp")) + "\n".join(
        p.read_text() for p in EXAMPLES.rglob("*.h")
    )
    for idiom in (
        "DTYPE_X",
        "TILING_KEY_IS",
        "DataCopyPad",
        "DataCopyExtParams",
        "DataCopyPadExtParams",
        "SetFlag<HardEvent",
        "WaitFlag<HardEvent",
        "TBuf<QuePosition::VECCALC>",
        "SyncAll()",
        "GetUserWorkspace",
        "SetAtomicAdd<float>",
        "SetAtomicNone",
        "<<<",
        "GetWorkspaceSizes",
    ):
        assert idiom in text, idiom
