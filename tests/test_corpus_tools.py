"""The corpus scripts (benchmarks/corpus_fetch.py, benchmarks/corpus.py) on a tiny git repository made here: the
layout reads the listed commit (not the newest), leaves build outputs and tests out, copies a manifest beside its
operator, the independent declaration count that the model is measured against counts what it should, and the case
made up for an operator without a manifest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from zero_d_op import write_mul_value

from tilewise.analysis.operator import load_operator
from tilewise.device.inputs import make_inputs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import corpus, corpus_fetch


def _git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


@pytest.fixture
def mirror(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "mirrors" / "someone+ops"
    (repo / "ops" / "add" / "op_kernel").mkdir(parents=True)
    (repo / "ops" / "add" / "op_kernel" / "add.cpp").write_text("// first\n")
    (repo / "ops" / "add" / "build_out").mkdir()
    (repo / "ops" / "add" / "build_out" / "junk.o").write_text("x")
    (repo / "ops" / "add" / "tests").mkdir()
    (repo / "ops" / "add" / "tests" / "t.cpp").write_text("x")
    (repo / "common").mkdir()
    (repo / "common" / "util.h").write_text("// util\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    listed = _git(repo, "rev-parse", "HEAD")
    (repo / "ops" / "add" / "op_kernel" / "add.cpp").write_text("// second\n")
    _git(repo, "commit", "-qam", "two")
    return tmp_path / "mirrors", listed


def test_layout_reads_the_listed_commit_without_build_outputs_or_tests(mirror, tmp_path, monkeypatch):
    mirrors, commit = mirror
    manifests = tmp_path / "manifests"
    (manifests / "ops1" / "ops" / "add").mkdir(parents=True)
    (manifests / "ops1" / "ops" / "add" / "tilewise.toml").write_text("[[cases]]\n")
    monkeypatch.setattr(corpus_fetch, "MANIFESTS", manifests)
    repo = corpus_fetch.Repo(id="ops1", name="someone/ops", commit=commit, operators=["ops/add"], support=["common"])
    out = tmp_path / "corpus"
    gd = corpus_fetch.git_dir(mirrors, repo.name)
    assert gd is not None
    written, problems = corpus_fetch.materialize(repo, gd, out)
    assert (written, problems) == (1, [])
    op = out / "ops1" / "ops" / "add"
    assert (op / "op_kernel" / "add.cpp").read_text() == "// first\n"  # the listed commit, not HEAD
    assert not (op / "build_out").exists() and not (op / "tests").exists()
    assert (op / "tilewise.toml").read_text() == "[[cases]]\n"
    assert (out / "ops1" / "common" / "util.h").exists()
    assert not (out / ".staging").exists()


def test_a_missing_folder_is_a_problem_naming_the_fix(mirror, tmp_path):
    mirrors, commit = mirror
    repo = corpus_fetch.Repo(id="ops1", name="someone/ops", commit=commit, operators=["ops/nope"])
    gd = corpus_fetch.git_dir(mirrors, repo.name)
    written, problems = corpus_fetch.materialize(repo, gd, tmp_path / "corpus")
    assert written == 0 and len(problems) == 1 and "ops/nope" in problems[0] and "sources.toml" in problems[0]


def test_the_committed_list_is_well_formed():
    repos = corpus_fetch.load_sources()
    ids = corpus_fetch.operator_ids(repos)
    assert len({r.name for r in repos}) >= 10 and len(ids) >= 300
    assert len(ids) == len(set(ids))
    assert all(len(r.commit) == 40 for r in repos)
    forbidden = ("NPUKernelBench", "ascendc-skill")
    assert not any(f.lower() in r.name.lower() for r in repos for f in forbidden)


def test_the_test_partition_is_held_out_by_repository():
    """Issue 32: the test partition's repositories are none of the development ones, and it is big enough to say
    something (at least 4 repositories, 100 operators and 30 goldens)."""
    dev = corpus_fetch.load_sources(partition="development")
    test = corpus_fetch.load_sources(partition="test")
    assert len(dev) + len(test) == len(corpus_fetch.load_sources())
    assert not {r.name for r in dev} & {r.name for r in test} and not {r.id for r in dev} & {r.id for r in test}
    test_ids = corpus_fetch.operator_ids(test)
    assert len(test) >= 4 and len(test_ids) >= 100
    assert sum((corpus_fetch.MANIFESTS / i / "tilewise.toml").is_file() for i in test_ids) >= 30
    parts = corpus_fetch.operator_partitions()
    assert {parts[i] for i in test_ids} == {"test"} and {parts[i] for i in corpus_fetch.operator_ids(dev)} == {
        "development"
    }


def test_a_partition_is_chosen_and_a_repository_without_one_is_refused(tmp_path):
    entry = '[[repo]]\nid = "{id}"\nname = "o/{id}"\ncommit = "{c}"\n{part}operators = ["op"]\n\n'
    listed = tmp_path / "sources.toml"
    listed.write_text(
        entry.format(id="a", c="1" * 40, part='partition = "development"\n')
        + entry.format(id="b", c="2" * 40, part='partition = "test"\n')
    )
    assert [r.id for r in corpus_fetch.load_sources(listed)] == ["a", "b"]
    assert [r.id for r in corpus_fetch.load_sources(listed, partition="test")] == ["b"]
    assert corpus_fetch.operator_partitions(corpus_fetch.load_sources(listed)) == {
        "a/op": "development",
        "b/op": "test",
    }
    with pytest.raises(ValueError, match="partition"):
        corpus_fetch.load_sources(listed, partition="held-out")
    listed.write_text(entry.format(id="c", c="3" * 40, part=""))
    with pytest.raises(ValueError, match="repository c: partition"):
        corpus_fetch.load_sources(listed)


def test_declarations_are_counted_independently_of_the_parser():
    text = """
    // TQue<QuePosition::VECIN, 1> commented;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> bind;
    TBuf<TPosition::VECCALC> tmp;
    TQue<QuePosition::VECIN, 2> queues[3];
    using InQ = TQue<QuePosition::VECIN, 2>;
    __aicore__ void Use(TBuf<> &buf, int n);
    void Init() { pipe.InitBuffer(inQueueX, 2, 256); pipe->InitBuffer(tmp, 64); /* InitBuffer(x) */ }
    """
    assert corpus.count_declarations([text]) == (5, 2)


def test_every_known_bug_names_a_listed_operator_with_a_golden():
    """An entry that names no corpus operator (a typo, a folder that moved) would silently stop counting."""
    import tomllib

    ids = set(corpus_fetch.operator_ids(corpus_fetch.load_sources()))
    known = tomllib.loads((corpus_fetch.HERE / "corpus" / "known_bugs.toml").read_text())
    bugs = known["bugs"]
    assert bugs and set(bugs) <= ids and set(known["broken_sources"]) <= ids
    assert all(
        (corpus_fetch.MANIFESTS / i / "tilewise.toml").is_file() and reason.strip() for i, reason in bugs.items()
    )


def test_declarations_in_branches_the_device_does_not_compile_are_not_counted():
    text = """
    #if defined(ASCENDC_CPU_DEBUG)
    TQue<QuePosition::VECIN, 1> debugOnly;
    #else
    TQue<QuePosition::VECIN, 2> a, b;
    #endif
    #if __CCE_AICORE__ == 200
    TBuf<> older; void F() { pipe.InitBuffer(older, 64); }
    #endif
    """
    assert corpus.count_declarations([text]) == (2, 0)


def test_a_memory_warning_is_not_clean_but_the_golden_still_decides_and_it_catches_a_known_bug(monkeypatch):
    """An overrun the device makes without stopping runs on (a warning), so "matches" is the golden's call; "runs
    clean" counts it out, and for a known-buggy operator it counts as caught. A `misaligned` warning is not one."""
    ok = dict(compiled=True, ran=True, cases=1, entry=True)
    results = [
        corpus.OpResult(
            id="sound/overrun", golden=True, memory_warning="[c] warning ub_out_of_bounds: k.cpp:3 x", **ok
        ),
        corpus.OpResult(id="sound/clean", golden=True, **ok),
        corpus.OpResult(
            id="buggy/overrun", golden=True, memory_warning="[c] warning gm_out_of_bounds: k.cpp:9 y", **ok
        ),
        corpus.OpResult(id="buggy/unnoticed", golden=True, **ok),
    ]
    monkeypatch.setattr(corpus, "_GOLDEN_IDS", {r.id for r in results})
    monkeypatch.setattr(corpus, "_KNOWN_BUGS", {"buggy/overrun": "reads past y", "buggy/unnoticed": "wrong"})
    lines = corpus.totals(results, ran=True)
    assert any(line.startswith("runs clean under the sanitizer (no error, no memory warning): 2/4 ") for line in lines)
    assert "with a golden: compile, run and match: 4/4 (100.0%)" in lines
    assert any("caught here" in line and line.endswith(": 1/2 (50.0%)") for line in lines)
    assert "run warn golden ok" in corpus.line_for(results[0]) and "ub_out_of_bounds" in corpus.line_for(results[0])


def test_the_totals_show_the_two_partitions_side_by_side(monkeypatch):
    """corpus.py never folds the test partition into the development one: each figure has a column per partition,
    and a partition this run did not measure shows '-'."""
    ok = dict(compiled=True, ran=True, cases=1, entry=True)
    results = [
        corpus.OpResult(id="dev/a", golden=True, **ok),
        corpus.OpResult(id="dev/b", golden=False, **ok),
        corpus.OpResult(id="held/c", golden=True, **ok),
    ]
    monkeypatch.setattr(corpus, "_GOLDEN_IDS", {r.id for r in results})
    monkeypatch.setattr(corpus, "_KNOWN_BUGS", {})
    parts = {"dev/a": "development", "dev/b": "development", "held/c": "test"}
    table = corpus.partition_table(results, True, parts)
    assert [c.strip() for c in table[0].split("|")[1:]] == ["development", "test"]
    golden = next(line for line in table if line.startswith("with a golden: compile, run and match"))
    assert [c.strip() for c in golden.split("|")[1:]] == ["1/2 (50.0%)", "1/1 (100.0%)"]
    only_test = corpus.partition_table(results[2:], True, parts)
    assert [c.strip() for c in only_test[1].split("|")[1:]] == ["-", "1"]


def test_a_made_up_case_gives_a_scalar_input_the_made_up_shape_too(tmp_path):
    op_root = write_mul_value(tmp_path / "mul_value", manifest=None)
    # benchmarks/corpus.py makes a case from the OpDef when the operator has no manifest: a scalar input gets the
    # same made-up shape as the others (the OpDef does not say it is 0-d), and the case is a valid one.
    case = corpus.made_up_case(load_operator(op_root))
    assert case is not None and {n: (s.shape, s.dtype) for n, s in case.inputs.items()} == {
        "x": ([8, 1024], "float32"),
        "value": ([8, 1024], "float32"),
    }
    assert {n: a.shape for n, a in make_inputs(case, seed=0).items()} == {"x": (8, 1024), "value": (8, 1024)}
