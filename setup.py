"""Builds `import trainbudget` with CMake for pip (docs/python.md).

`pip install --no-build-isolation .` configures a release build in build/pip (or reuses the
build folder TRAINBUDGET_BUILD_DIR names), builds the `_trainbudget` target and installs the
package folder it writes (<build>/python/trainbudget). The module reads the model presets from
this source tree's data/ (TRAINBUDGET_DATA_DIR overrides it); the hardware catalog is compiled in.
"""
import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def run(self):
        build = os.environ.get("TRAINBUDGET_BUILD_DIR")
        if not build:
            build = os.path.join(ROOT, "build", "pip")
            subprocess.check_call(
                ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                 "-DTRAINBUDGET_BUILD_TESTS=OFF", "-DTRAINBUDGET_BUILD_BENCH=OFF",
                 f"-DPython_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build, "--target", "_trainbudget", "--parallel",
                               str(os.cpu_count() or 2)])
        package = os.path.join(build, "python", "trainbudget")
        if not os.path.isfile(os.path.join(package, "__init__.py")):
            sys.exit(f"setup.py: {package} holds no trainbudget package (is pybind11-dev installed?)")
        shutil.copytree(package, os.path.join(self.build_lib, "trainbudget"), dirs_exist_ok=True)


class BinaryDistribution(Distribution):
    """A native module: the wheel is for this platform and Python."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_ext": CMakeBuild}, distclass=BinaryDistribution, packages=[],
      zip_safe=False)
