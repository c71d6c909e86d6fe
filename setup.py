"""setuptools' entry for the build hook only: everything else about the package is in pyproject.toml.

build_hook.BuildPy puts the charts bundle and the example operators into the wheel (see build_hook.py).
"""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))  # build_hook.py beside this file, in a checkout or an sdist

from build_hook import BuildPy

setup(cmdclass={"build_py": BuildPy})
