"""Tags the wheel; the metadata is in ``pyproject.toml``.

A wheel that bundles ``gatewire/libGatewire.so`` (``scripts/wheel.sh`` puts it there) holds
machine code for one platform, so it must not be tagged ``py3-none-any``, and it is installed
into ``platlib``. The package itself is ctypes over a C ABI, with no CPython extension, so
any Python 3 on that platform can use it: the tag is ``py3-none-PLATFORM`` (for example
``py3-none-linux_x86_64``), not ``cp311-cp311-PLATFORM``. Without a bundled library the
wheel is pure Python (``py3-none-any``) and loads a library installed elsewhere.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel

BUNDLED_LIBRARY = Path(__file__).resolve().parent / "gatewire" / "libGatewire.so"


class PlatformDistribution(Distribution):
    """A distribution that counts a bundled library as platform code.

    setuptools then builds into a platform-specific folder, installs into ``platlib`` and
    tags the wheel with the platform, as it does for an extension module.
    """

    def has_ext_modules(self) -> bool:
        return BUNDLED_LIBRARY.is_file()


class PlatformWheel(bdist_wheel):
    """``bdist_wheel`` that tags a platform wheel ``py3-none-PLATFORM``: no CPython ABI."""

    def get_tag(self) -> tuple[str, str, str]:
        python, abi, platform = super().get_tag()
        return (python, abi, platform) if self.root_is_pure else ("py3", "none", platform)


setup(distclass=PlatformDistribution, cmdclass={"bdist_wheel": PlatformWheel})
