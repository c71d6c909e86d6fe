"""tilewise.toml: valid manifests load; every error names the file, the line and the field."""

from __future__ import annotations

import pytest

from tilewise.analysis.errors import ManifestError
from tilewise.analysis.manifest import load_manifest, parse_manifest

GOOD = """\
[operator]
name = "Scale"

[golden]
function = "golden.py:scale"
rtol = 1e-3
atol = 1e-3

[[cases]]
name = "small"
[cases.inputs.x]
shape = [8, 1024]
dtype = "float16"

[[cases]]
name = "big"
attrs = { scale = 0.5 }
[cases.inputs.x]
shape = [48, 4096]
dtype = "fp32"
init = "positive"

[knobs.TILE_LENGTH]
domain = [1024, 2048, 4096]
value = 2048
"""


def test_good_manifest_loads():
    m = parse_manifest(GOOD, "tilewise.toml")
    assert [c.name for c in m.cases] == ["small", "big"]
    assert m.cases[1].inputs["x"].dtype == "float32" and m.cases[1].attrs == {"scale": 0.5}
    assert m.golden.function == "golden.py:scale" and m.knobs["TILE_LENGTH"].value == 2048
    assert m.case("big").inputs["x"].init == "positive"
    with pytest.raises(ManifestError, match="no case named 'nope'"):
        m.case("nope")


@pytest.mark.parametrize(
    ("old", "new", "line", "field", "hint"),
    [
        ('dtype = "fp32"', 'dtype = "float33"', 20, "cases[1].inputs.x.dtype", "unknown dtype 'float33'"),
        ("shape = [8, 1024]", "shape = [8, -1]", 12, "cases[0].inputs.x.shape", "positive"),
        ('init = "positive"', 'init = "lognormal"', 21, "cases[1].inputs.x.init", "Input should be"),
        ('function = "golden.py:scale"', 'function = "golden:scale"', 5, "golden.function", "pattern"),
        ("rtol = 1e-3", "rtol = -1", 6, "golden.rtol", "greater than or equal"),
        ("domain = [1024, 2048, 4096]", "domain = []", 24, "knobs.TILE_LENGTH.domain", "at least 1"),
        ('name = "big"', 'nmae = "big"', 16, "cases[1].nmae", "unknown field"),
        (
            '[cases.inputs.x]\nshape = [48, 4096]\ndtype = "fp32"\n',
            "[cases.inputs.x]\nshape = [48, 4096]\n",
            18,
            "cases[1].inputs.x.dtype",
            "missing",
        ),
    ],
)
def test_validation_errors_name_file_line_and_field(old, new, line, field, hint):
    text = GOOD.replace(old, new, 1)
    assert text != GOOD
    with pytest.raises(ManifestError) as exc:
        parse_manifest(text, "op/tilewise.toml")
    e = exc.value
    assert e.file == "op/tilewise.toml"
    assert e.line == line, str(e)
    assert f"'{field}'" in e.message and hint in e.message
    assert "\n" not in str(e)


def test_toml_syntax_error_has_its_line():
    with pytest.raises(ManifestError) as exc:
        parse_manifest(GOOD.replace("rtol = 1e-3", "rtol = = 1e-3"), "m.toml")
    assert exc.value.line == 6 and "TOML syntax error" in exc.value.message


def test_unreadable_and_non_utf8_manifests(tmp_path):
    p = tmp_path / "tilewise.toml"
    p.write_bytes(b'name = "caf\xe9"')
    with pytest.raises(ManifestError, match="not UTF-8"):
        load_manifest(p)
    with pytest.raises(ManifestError, match="cannot be read"):
        load_manifest(tmp_path / "missing.toml")


FILES = """\
[[cases]]
name = "a"
[cases.inputs.x]
shape = [16]
dtype = "float32"
[[cases.files]]
path = "a.bin"
dtype = "int8"
values = [-1]

[[cases]]
name = "b"
[cases.inputs.x]
shape = [16]
dtype = "float32"
[[cases.files]]
path = "input/tiling.bin"
dtype = "uint32"
values = [2, 16, 4]
[[cases.files]]
path = "input/tiling.bin"
dtype = "float32"
values = [0.5]
"""


def test_a_case_lists_fixed_data_files():
    m = parse_manifest(FILES, "tilewise.toml")
    assert [(f.path, f.dtype, f.values) for f in m.cases[0].files] == [("a.bin", "int8", [-1])]
    assert [(f.path, f.dtype, f.values) for f in m.cases[1].files] == [
        ("input/tiling.bin", "uint32", [2, 16, 4]),
        ("input/tiling.bin", "float32", [0.5]),
    ]


@pytest.mark.parametrize(
    ("old", "new", "line", "field", "hint"),
    [
        (
            "values = [2, 16, 4]",
            "values = [2, -16, 4]",
            19,
            "cases[1].files[0].values",
            "values[1] = -16 is not a uint32",
        ),
        ("values = [2, 16, 4]", "values = [2, 16.5, 4]", 19, "cases[1].files[0].values", "is not a uint32"),
        ("values = [0.5]", "values = [1e39]", 23, "cases[1].files[1].values", "out of float32's range"),
        ("values = [0.5]", "values = []", 23, "cases[1].files[1].values", "at least 1"),
        ('dtype = "uint32"', 'dtype = "u32"', 18, "cases[1].files[0].dtype", "unknown dtype"),
        ('path = "input/tiling.bin"', 'path = "../tiling.bin"', 17, "cases[1].files[0].path", "without '..'"),
        ('path = "input/tiling.bin"', 'path = "/tmp/tiling.bin"', 17, "cases[1].files[0].path", "relative"),
        ('path = "input/tiling.bin"', 'file = "input/tiling.bin"', 17, "cases[1].files[0].file", "unknown field"),
    ],
)
def test_bad_files_name_their_line_and_field(old, new, line, field, hint):
    # `[[cases.files]]` is counted within its own `[[cases]]`, so the second case's first file is files[0]
    text = FILES.replace(old, new, 1)
    assert text != FILES
    with pytest.raises(ManifestError) as exc:
        parse_manifest(text, "op/tilewise.toml")
    assert exc.value.line == line, str(exc.value)
    assert f"'{field}'" in exc.value.message and hint in exc.value.message


def test_a_file_may_not_stand_for_an_input():
    text = FILES.replace('path = "a.bin"', 'path = "input/input_x.bin"')
    with pytest.raises(ManifestError, match="is an input's file") as exc:
        parse_manifest(text, "op/tilewise.toml")
    assert "'cases[0].files'" in exc.value.message and exc.value.line == 7  # its first line


SCALAR = """\
[[cases]]
name = "addcdiv"
[cases.inputs.x]
shape = [4, 8]
dtype = "float32"
[cases.inputs.value]
shape = []
dtype = "float32"
"""


def test_an_empty_shape_is_a_0d_input_and_survives_a_round_trip():
    from tilewise.analysis.manifest import Manifest
    from tilewise.search.calibrate.operators import _manifest

    m = parse_manifest(SCALAR, "tilewise.toml")
    value = m.cases[0].inputs["value"]
    assert value.shape == [] and m.cases[0].input_elements == 32 + 1  # a 0-d tensor holds one element
    again = Manifest.model_validate(m.model_dump())
    assert again.cases[0].inputs["value"].shape == [] and again.cases == m.cases
    # the manifest tilewise writes itself (the calibration operators') spells it `shape = []` and reads it back
    written = _manifest("golden", m.cases)
    assert "value = { shape = []," in written
    assert parse_manifest(written, "tilewise.toml").cases[0].inputs == m.cases[0].inputs


def test_a_missing_shape_is_not_a_0d_one():
    text = SCALAR.replace('shape = []\ndtype = "float32"\n', 'dtype = "float32"\n')
    with pytest.raises(ManifestError) as exc:
        parse_manifest(text, "op/tilewise.toml")
    e = exc.value
    assert e.line == 6 and "'cases[0].inputs.value.shape': required field is missing" in e.message
    assert "shape = [] for a 0-d tensor" in e.message and "\n" not in str(e)
