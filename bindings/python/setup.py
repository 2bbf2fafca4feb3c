"""Builds the oh-hooks wheel: the ctypes package with the engine's shared library inside it.

The library put into the wheel comes from, in order:

1. ``$OH_HOOKS_WHEEL_LIB``, a library already built (how ``make dist`` makes the platform wheel
   with the stripped LTO build);
2. otherwise cargo, from the Rust sources: ``rust/`` in an sdist, the repository root in a clone.

Whatever ``oh_hooks/`` or an old ``build/`` holds is never shipped: the library is copied fresh
into the build directory on every build, after any older copy there is removed.

The wheel is tagged ``py3-none-<platform>``: ctypes works with any Python 3, but the library is
for one platform. ``$OH_HOOKS_WHEEL_PLAT`` sets the platform tag (``make dist`` sets the manylinux
tag it computed from the glibc symbols the library needs); otherwise it is this machine's.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent

if sys.platform == "darwin":
    LIB_NAME = "liboh_hooks.dylib"
elif sys.platform == "win32":
    LIB_NAME = "oh_hooks.dll"
else:
    LIB_NAME = "liboh_hooks.so"
ALL_LIB_NAMES = ("liboh_hooks.so", "liboh_hooks.dylib", "oh_hooks.dll")


def _cargo_build(target_dir: Path) -> Path:
    """Builds the library from source and returns its path."""
    manifest = next(
        (p for p in (HERE / "rust" / "Cargo.toml", HERE.parent.parent / "Cargo.toml") if p.is_file()), None
    )
    if manifest is None:
        sys.exit("oh-hooks: no Rust sources found (rust/Cargo.toml in an sdist, ../../Cargo.toml in a clone)")
    cargo = os.environ.get("CARGO", "cargo")
    if shutil.which(cargo) is None:
        sys.exit(
            "oh-hooks: building from source needs Rust's cargo on PATH (https://rustup.rs), "
            "or install a prebuilt wheel for this platform"
        )
    env = dict(os.environ, CARGO_PROFILE_RELEASE_DEBUG="0", CARGO_PROFILE_RELEASE_STRIP="symbols")
    cmd = [cargo, "build", "--release", "--locked", "--lib", "--manifest-path", str(manifest)]
    cmd += ["--target-dir", str(target_dir)]
    print("oh-hooks: " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env=env)
    return target_dir / "release" / LIB_NAME


class BuildPyWithLibrary(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install finds ../../target/release itself
        dest = Path(self.build_lib) / "oh_hooks"
        for name in ALL_LIB_NAMES:  # a stale library from an earlier build must not ship
            (dest / name).unlink(missing_ok=True)
        given = os.environ.get("OH_HOOKS_WHEEL_LIB")
        if given:
            lib = Path(given)
            if not lib.is_file():
                sys.exit(f"oh-hooks: OH_HOOKS_WHEEL_LIB={given} is not a file")
        else:
            build_temp = self.get_finalized_command("build").build_temp
            lib = _cargo_build(Path(build_temp).resolve() / "cargo")
        shutil.copyfile(lib, dest / LIB_NAME)
        os.chmod(dest / LIB_NAME, 0o755)


class PlatformDistribution(Distribution):
    """Not pure: the package installs into platlib, and the wheel says so (auditwheel refuses a
    shared library in purelib). There is no extension module; the library is for one platform."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", os.environ.get("OH_HOOKS_WHEEL_PLAT") or plat


setup(distclass=PlatformDistribution, cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel})
