"""`tilewise examples DIR` copies the shipped example operators out, and where the package finds its examples and its
charts bundle: a wheel's own copies first, the checkout's examples/ and vscode-client/media/charts.js otherwise."""

from __future__ import annotations

import filecmp
import json
import shutil
from pathlib import Path

import pytest
from paths import EXAMPLES

import tilewise.cli.examples_command as examples_command
import tilewise.report.html as report_html
from tilewise.analysis.errors import TilewiseError
from tilewise.cli import main
from tilewise.cli.bank_command import example_operators


def _same_tree(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
        return False
    return all(_same_tree(a / d, b / d) for d in cmp.common_dirs)


def test_examples_copies_every_shipped_operator_each_to_its_own_folder(tmp_path, capsys):
    dest = tmp_path / "new" / "ops"  # made when missing
    assert main(["examples", str(dest)]) == 0
    shipped = sorted(p.parent.name for p in EXAMPLES.glob("*/tilewise.toml"))
    assert len(shipped) > 10
    assert sorted(p.name for p in dest.iterdir() if p.is_dir()) == shipped
    for name in shipped:
        assert _same_tree(EXAMPLES / name, dest / name), name
    assert (dest / "README.md").read_text() == (EXAMPLES / "README.md").read_text()  # the manifest's schema
    printed = capsys.readouterr().out
    files = [p for p in (EXAMPLES / "add_custom").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert f"add_custom/ ({len(files)} files)" in printed
    assert f"{len(shipped)} example operators in" in printed and "tilewise run" in printed


def test_an_existing_operator_folder_is_refused_in_one_line_and_nothing_is_written(tmp_path, capsys):
    dest = tmp_path / "ops"
    assert main(["examples", str(dest), "add_custom", "axpy"]) == 0
    kernel = dest / "add_custom" / "op_kernel" / "add_custom.cpp"
    kernel.write_text("// my edits\n")
    shutil.rmtree(dest / "axpy")  # one folder gone, one still there: nothing at all is written
    capsys.readouterr()
    assert main(["examples", str(dest), "add_custom", "axpy"]) == 2
    message = capsys.readouterr().err.strip()
    assert message == (
        f"error: {dest / 'add_custom'}: already exists: pass --force to write the shipped files over it, or choose "
        "another folder"
    )
    assert kernel.read_text() == "// my edits\n" and not (dest / "axpy").exists()


def test_force_writes_the_shipped_files_over_and_keeps_the_users_others(tmp_path, capsys):
    dest = tmp_path / "ops"
    assert main(["examples", str(dest), "add_custom"]) == 0
    kernel = dest / "add_custom" / "op_kernel" / "add_custom.cpp"
    kernel.write_text("// my edits\n")
    mine = dest / "add_custom" / "notes.txt"
    mine.write_text("keep me")
    capsys.readouterr()
    assert main(["examples", str(dest), "add_custom", "--force"]) == 0
    assert kernel.read_text() == (EXAMPLES / "add_custom" / "op_kernel" / "add_custom.cpp").read_text()
    assert mine.read_text() == "keep me"
    assert "(over the existing folder)" in capsys.readouterr().out


def test_unknown_names_and_a_file_for_a_folder_are_one_line_each(tmp_path, capsys):
    assert main(["examples", str(tmp_path / "ops"), "add_custon"]) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith("error: add_custon: no such example; the examples are: add_custom, ") and "\n" not in line
    assert not (tmp_path / "ops").exists()
    a_file = tmp_path / "file.txt"
    a_file.write_text("")
    assert main(["examples", str(a_file)]) == 2
    assert capsys.readouterr().err.strip() == f"error: {a_file}: not a folder: name a folder to copy the examples into"


def test_json_names_each_folder_written(tmp_path, capsys):
    assert main(["examples", str(tmp_path), "add_custom", "gelu", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["examples"]
    assert [(r["name"], r["path"], r["replaced"]) for r in rows] == [
        ("add_custom", str((tmp_path / "add_custom").resolve()), False),
        ("gelu", str((tmp_path / "gelu").resolve()), False),
    ]
    assert all(r["files"] >= 4 for r in rows)


def _packaged_copy(tmp_path: Path, names: list[str]) -> Path:
    """What a wheel's build hook leaves as tilewise/examples/: copies of these examples."""
    root = tmp_path / "site-packages" / "tilewise" / "examples"
    for name in names:
        shutil.copytree(EXAMPLES / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_the_packages_own_examples_come_first_and_bank_mine_takes_them_too(tmp_path, monkeypatch):
    assert examples_command.examples_root() == EXAMPLES  # a checkout: no copy in the package
    packaged = _packaged_copy(tmp_path, ["gelu", "add_custom_slow_pipe_all"])
    monkeypatch.setattr(examples_command, "PACKAGED_EXAMPLES", packaged)
    assert examples_command.examples_root() == packaged
    assert example_operators() == [packaged / "gelu"]  # the slow twin left out, as from the checkout


def test_an_install_with_no_examples_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(examples_command, "PACKAGED_EXAMPLES", tmp_path / "none")
    monkeypatch.setattr(examples_command, "CHECKOUT_EXAMPLES", tmp_path / "none either")
    with pytest.raises(TilewiseError) as exc:
        examples_command.examples_root()
    assert exc.value.file == str(tmp_path / "none") and "no example operators" in exc.value.one_line()
    assert main(["examples", str(tmp_path / "ops")]) == 2
    assert main(["bank", "mine", "--no-cache"]) == 2  # bank mine with no OPDIR: the same line, nothing mined
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all("this tilewise install has no example operators" in line for line in lines)


def test_the_charts_bundle_is_the_packages_copy_else_the_checkouts(tmp_path, monkeypatch):
    monkeypatch.delenv(report_html.BUNDLE_ENV, raising=False)
    packaged = tmp_path / "tilewise" / "report" / "charts.js"
    checkout = tmp_path / "repo" / "vscode-client" / "media" / "charts.js"
    monkeypatch.setattr(report_html, "PACKAGED_BUNDLE", packaged)
    monkeypatch.setattr(report_html, "CHECKOUT_BUNDLE", checkout)
    checkout.parent.mkdir(parents=True)
    (checkout.parent.parent / "package.json").write_text("{}")
    checkout.write_text("checkout();")
    assert report_html.charts_bundle() == checkout  # an editable install
    packaged.parent.mkdir(parents=True)
    packaged.write_text("wheel();")
    assert report_html.charts_bundle() == packaged  # a wheel's copy wins
    given = tmp_path / "mine.js"
    given.write_text("mine();")
    monkeypatch.setenv(report_html.BUNDLE_ENV, str(given))
    assert report_html.charts_bundle() == given  # named by hand wins over both


def test_an_install_without_a_bundle_says_to_reinstall_not_to_run_npm_in_a_checkout_it_has_not(tmp_path, monkeypatch):
    monkeypatch.delenv(report_html.BUNDLE_ENV, raising=False)
    monkeypatch.setattr(report_html, "PACKAGED_BUNDLE", tmp_path / "tilewise" / "report" / "charts.js")
    monkeypatch.setattr(report_html, "CHECKOUT_BUNDLE", tmp_path / "lib" / "vscode-client" / "media" / "charts.js")
    with pytest.raises(TilewiseError) as exc:
        report_html.charts_bundle()
    line = exc.value.one_line()
    assert exc.value.file == str(tmp_path / "tilewise" / "report" / "charts.js")
    assert "reinstall tilewise from a wheel built with npm present" in line and "npm --prefix" not in line
