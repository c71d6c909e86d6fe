"""The child side of a golden run (device/golden_process.py), executed as a script by the same Python: it reads the
job (the golden's file and function, its arguments and attributes) from a pickle, calls the golden and writes its
answer, or how it failed, to another. It imports nothing of tilewise, only numpy and the standard library, so that
starting it costs little more than the golden's own imports.

Answers: ("ok", result) with every array-like leaf made a numpy array (a list or tuple stays one: a DYNAMIC output),
or (kind, repr of the exception, the golden file's line) for kind "import", "missing" or "raised".
"""

from __future__ import annotations

import importlib.util
import pickle
import sys
import traceback
from pathlib import Path


def _plain(x):
    import numpy as np

    if isinstance(x, tuple | list):
        return type(x)(_plain(i) for i in x) if type(x) in (tuple, list) else [_plain(i) for i in x]
    return np.asarray(x)


def _line(exc: BaseException, path: Path) -> int | None:
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if Path(frame.filename) == path:
            return frame.lineno
    return None


def answer(job: dict) -> tuple:
    path = Path(job["path"])
    sys.path[0] = str(path.parent)  # (not this file's folder) a golden may import a helper beside it
    try:
        spec = importlib.util.spec_from_file_location(f"tilewise_golden_{abs(hash(str(path)))}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - user code: reported, never a traceback
        return ("import", repr(exc), _line(exc, path))
    fn = getattr(module, job["name"], None)
    if not callable(fn):
        return ("missing", None, None)
    try:
        return ("ok", _plain(fn(*job["inputs"], **job["attrs"])))
    except Exception as exc:  # noqa: BLE001 - user code
        return ("raised", repr(exc), _line(exc, path))


def main(job_path: str, answer_path: str) -> None:
    with open(job_path, "rb") as f:
        job = pickle.load(f)
    result = answer(job)
    try:
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - an answer of objects that cannot leave the process
        data = pickle.dumps(("raised", f"its answer cannot be sent back: {exc!r}", None))
    with open(answer_path + ".tmp", "wb") as f:
        f.write(data)
    Path(answer_path + ".tmp").replace(answer_path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
