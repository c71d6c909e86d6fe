"""A case may give one output its own golden tolerance (`[cases.outputs.NAME] rtol/atol`): an output the operator
computes at a lower precision by design (a float32 sum of float16-rounded products) is judged with the tolerance
its design earns, while the other outputs keep the golden's. An explicit rtol/atol (the CLI's) overrides both."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tilewise.analysis.manifest import Case, InputSpec, ManifestError, OutputSpec, parse_manifest
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.golden import check_outputs
from tilewise.device.protocol import OutputCheck, RunRequest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "add_custom"


def test_per_output_tolerance_applies_to_that_output_only():
    outs = [OutputCheck(name="a", shape=[3], dtype="float32"), OutputCheck(name="b", shape=[3], dtype="float32")]
    got = [np.array([1.0, 2.0, 3.0], np.float32)] * 2
    want = [np.array([1.0, 2.0, 3.01])] * 2
    a, b = check_outputs(outs, got, want, rtol=1e-3, atol=1e-3, per_output={"a": (0.0, 0.02)})
    assert a.ok and not b.ok and b.mismatches == 1
    a, b = check_outputs(outs, got, want, rtol=1e-3, atol=1e-3)
    assert not a.ok and not b.ok


def test_manifest_output_tolerance_parses_and_refuses_negative_values():
    text = (
        '[golden]\nfunction = "g.py:f"\n[[cases]]\nname = "c"\n[cases.inputs.x]\nshape = [4]\n'
        'dtype = "float16"\n[cases.outputs.y]\natol = 0.01\n'
    )
    spec = parse_manifest(text, "tilewise.toml").cases[0].outputs["y"]
    assert spec.atol == 0.01 and spec.rtol is None and spec.dtype is None
    with pytest.raises(ManifestError) as exc:
        parse_manifest(text.replace("atol = 0.01", "atol = -1"), "tilewise.toml")
    assert "tilewise.toml:9" in str(exc.value) and "atol" in str(exc.value)


def test_a_case_output_tolerance_decides_the_run(tmp_path, emu_cache, needs_gxx):
    # The golden is off by 0.01 everywhere: the default 1e-3 refuses it, the output's own atol of 0.02 accepts it,
    # and an explicit atol given to run (the CLI's) overrides the output's again.
    root = tmp_path / "add_custom"
    shutil.copytree(EXAMPLE, root)
    (root / "off.py").write_text("def golden(x, y):\n    return x.astype('float64') + y + 0.01\n")
    spec = InputSpec(shape=[2048], dtype="float32")
    plain = Case(name="plain", inputs={"x": spec, "y": spec})
    loose = Case(name="loose", inputs={"x": spec, "y": spec}, outputs={"z": OutputSpec(atol=0.02)})
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    op = load_operator(root)
    assert device.run(op, RunRequest(plain, golden="off.py:golden")).correct is False
    assert device.run(op, RunRequest(loose, golden="off.py:golden")).correct is True
    assert device.run(op, RunRequest(loose, golden="off.py:golden", atol=1e-3)).correct is False
