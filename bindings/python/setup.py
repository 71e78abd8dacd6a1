"""Tags the wheel; the metadata is in ``pyproject.toml``.

A wheel that bundles ``gatewire/libGatewire.so`` (``scripts/wheel.sh`` puts it there) holds
machine code for one platform, so it must not be tagged ``py3-none-any``, and it is installed
into ``platlib``. Two platform wheels are built from the same package:

- with the CPython extension ``gatewire/_speedups<EXT_SUFFIX>`` (``_speedups.c``, compiled
  for one interpreter's ABI, e.g. ``_speedups.cpython-311-x86_64-linux-gnu.so``), the wheel
  carries that interpreter's tag, ``cp311-cp311-PLATFORM``, as any wheel with an extension
  module does (PEP 425), and pip installs it only into that interpreter;
- without it, the package is ctypes over the C ABI, which any Python 3 on the platform can
  use: the tag is ``py3-none-PLATFORM`` (for example ``py3-none-linux_x86_64``).

Offered both (``pip install --find-links DIST gatewire``), pip takes the ``cp311`` wheel on
CPython 3.11, whose tag it ranks first, and the ``py3`` one on any other Python. Without a
bundled library the wheel is pure Python (``py3-none-any``) and loads a library installed
elsewhere.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel

PACKAGE = Path(__file__).resolve().parent / "gatewire"
BUNDLED_LIBRARY = PACKAGE / "libGatewire.so"


def bundled_extension() -> bool:
    """True when ``scripts/wheel.sh`` put a built ``_speedups`` extension in the package."""
    return any(PACKAGE.glob("_speedups.*.so"))


class PlatformDistribution(Distribution):
    """A distribution that counts a bundled library as platform code.

    setuptools then builds into a platform-specific folder, installs into ``platlib`` and
    tags the wheel with the platform, as it does for an extension module.
    """

    def has_ext_modules(self) -> bool:
        return BUNDLED_LIBRARY.is_file()


class PlatformWheel(bdist_wheel):
    """``bdist_wheel`` that tags a platform wheel ``py3-none-PLATFORM`` unless it carries the
    extension, which ties it to the building interpreter (``cp311-cp311-PLATFORM``)."""

    def get_tag(self) -> tuple[str, str, str]:
        python, abi, platform = super().get_tag()
        if self.root_is_pure or bundled_extension():
            return python, abi, platform
        return "py3", "none", platform


setup(distclass=PlatformDistribution, cmdclass={"bdist_wheel": PlatformWheel})
