"""A chip file given with --chip that is not valid JSON, or whose field has the wrong type, is one line naming the
file (and the line, for JSON), and nothing runs."""

from __future__ import annotations

from paths import EXAMPLES

from tilewise.cli import main


def test_a_chip_file_that_is_not_json_names_its_line(tmp_path, capsys):
    chip = tmp_path / "mine.json"
    chip.write_text('{"name": "mine",\n "vector_cores": 4,,\n}\n')
    assert main(["lint", str(EXAMPLES / "add_custom"), "--chip", str(chip)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"error: {chip}:2: chip file is not valid JSON")


def test_a_chip_field_of_the_wrong_type_is_named(tmp_path, capsys):
    chip = tmp_path / "mine.json"
    chip.write_text('{"name": "mine", "vector_cores": "many"}')
    assert main(["run", str(EXAMPLES / "add_custom"), "--chip", str(chip)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"error: {chip}: chip field 'vector_cores': Input should be a valid integer")
