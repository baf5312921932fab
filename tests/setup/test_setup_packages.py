# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Everything the build and the README's commands use comes from something the setup installs.

A package installed by hand on a developer's machine (Debian's spirv-headers once) lets every
build there pass while a new machine's setup fails. So, on the machine the suite runs on:
- every path a CMake cache resolved (wasinn's build and the native dependencies' builds that
  scripts/deps/ run: find_package's *_DIR, found libraries, headers and programs) must belong to
  a Debian package in the closure of the setup's package lists (scripts/deps/*.apt,
  scripts/images/images.apt, with their dependencies), to the project's own prefixes (.deps,
  ~/.cache/wasinn, the build trees), or to the toolchains the machine image brings and no
  registry ships (rustup's Rust, Node.js: docs/setup.md);
- every program the README's commands start must resolve the same way.
Run by ctest as setup.packages: python3 test_setup_packages.py ROOT BUILD
"""
import functools
import os
import re
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
BUILD = Path(sys.argv[2] if len(sys.argv) > 2 else ROOT / "build")
CACHE = Path(os.environ.get("WASINN_CACHE", Path.home() / ".cache/wasinn"))
HOME = Path.home()
# The machine image's own toolchains (scripts/check-fresh.sh gives them to the bare root too).
MACHINE_TOOLCHAINS = [HOME / ".rustup", HOME / ".cargo/bin", Path("/usr/lib/node_modules"), Path("/usr/bin/node"),
                      Path("/usr/bin/npm"), Path("/usr/bin/npx")]


def setup_lists():
    return sorted((ROOT / "scripts/deps").glob("*.apt")) + [ROOT / "scripts/images/images.apt"]


def named_packages():
    names = set()
    for f in setup_lists():
        for line in f.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                names.add(line)
    return names


def installed_packages():
    """{package: (depends list of alternatives, provides)} from dpkg's status."""
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Status}\t${Essential}\t${Priority}\t${Depends}, ${Pre-Depends}\t${Provides}\n"],
                         capture_output=True, text=True, check=True).stdout
    pkgs, essential, provides = {}, set(), {}
    for line in out.splitlines():
        name, status, ess, prio, deps, prov = (line.split("\t") + [""] * 6)[:6]
        if "ok installed" not in status:
            continue
        alternatives = []
        for dep in deps.split(","):
            dep = dep.strip()
            if dep:
                alternatives.append([re.split(r"[ (:]", a.strip())[0] for a in dep.split("|")])
        pkgs[name] = alternatives
        if ess == "yes" or prio == "required":
            essential.add(name)
        for p in prov.split(","):
            p = re.split(r"[ (:]", p.strip())[0]
            if p:
                provides.setdefault(p, set()).add(name)
    return pkgs, essential, provides


def closure():
    """What the setup installs: its named packages, Debian's required base, and their dependencies."""
    pkgs, essential, provides = installed_packages()
    todo = list(named_packages() | essential)
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for alternatives in pkgs.get(name, []):
            for alt in alternatives:
                for real in ([alt] if alt in pkgs else []) + sorted(provides.get(alt, ())):
                    if real not in seen:
                        todo.append(real)
    return seen


def candidates(path):
    """The names dpkg may know path by: itself, what a symlink resolves to, and, Debian 12's /usr
    being merged, /bin/bash for what the PATH finds as /usr/bin/bash."""
    names = {str(path), os.path.realpath(path)}
    for p in list(names):
        if re.match(r"^/usr/(s?bin|lib[^/]*)/", p):
            names.add(p[4:])
    return names


def owners(paths):
    """{path: the Debian packages that own it under any of its names}, from one dpkg -S."""
    names = {p: candidates(p) for p in paths}
    every = sorted(set().union(*names.values())) if names else []
    # Exit 1 when some name has no owner: those are simply absent from the answer.
    out = subprocess.run(["dpkg", "-S", *every], capture_output=True, text=True).stdout if every else ""
    by_name = {}
    for line in out.splitlines():
        if ": " in line and not line.startswith("diversion"):
            pkgs, name = line.split(": ", 1)
            by_name.setdefault(name, set()).update(pkg.strip().split(":")[0] for pkg in pkgs.split(","))
    return {p: set().union(*(by_name.get(n, set()) for n in ns)) for p, ns in names.items()}


@functools.lru_cache(maxsize=None)
def own_prefixes():
    """The project's own trees and the machine image's toolchains: paths found there need no package."""
    mine = [ROOT, CACHE, Path(os.path.realpath(ROOT / ".deps"))] + [Path(os.path.realpath(b)) for b in ROOT.glob("build*")]
    return tuple(mine + MACHINE_TOOLCHAINS)


def is_project_or_machine(path):
    real = Path(os.path.realpath(path))
    for base in own_prefixes():
        for p in (Path(path), real):
            if p == base or base in p.parents:
                return True
    return False


def cmake_caches():
    caches = [BUILD / "CMakeCache.txt"] + sorted(CACHE.glob("build/*/build/CMakeCache.txt"))
    return [c for c in caches if c.is_file()]


ENTRY = re.compile(r"^([A-Za-z0-9_.+-]+):(PATH|FILEPATH)=(/.*)$")
# Cache entries that are settings or outputs, not things found on the machine.
NOT_FOUND_THINGS = re.compile(r"^(CMAKE_INSTALL_|CMAKE_CACHEFILE_DIR|CMAKE_HOME_DIRECTORY|.*_BINARY_DIR|.*_SOURCE_DIR"
                              r"|CMAKE_.*_OUTPUT|WASINN_DEPS_DIR|WASINN_JCO_DIR|FETCHCONTENT_|CMAKE_PROJECT_)")


class SetupInstallsWhatIsUsed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.closure = closure()

    def unaccounted(self, found):
        """The (what, path) pairs, found on the machine, that nothing the setup installs accounts for."""
        found = [(what, path) for what, path in found if os.path.exists(path) and not is_project_or_machine(path)]
        owned = owners({path for _, path in found})
        bad = []
        for what, path in found:
            pkgs = owned[path]
            if not pkgs:
                bad.append(f"{what} = {path}: no Debian package owns it (installed by hand?)")
            elif not pkgs & self.closure:
                bad.append(f"{what} = {path}: from {', '.join(sorted(pkgs))}, which the setup's lists "
                           f"({', '.join(str(f.relative_to(ROOT)) for f in setup_lists()[:2])}, ...) do not install")
        return bad

    def test_every_cmake_package_resolves_from_the_setup(self):
        caches = cmake_caches()
        self.assertTrue(caches, f"no CMakeCache.txt in {BUILD}: build first (bash scripts/setup.sh)")
        found = []
        for cache in caches:
            for line in cache.read_text(errors="replace").splitlines():
                m = ENTRY.match(line)
                if not m or NOT_FOUND_THINGS.match(m.group(1)) or m.group(3).endswith("-NOTFOUND"):
                    continue
                where = cache.parent if cache.parent == BUILD else cache.parent.relative_to(CACHE)
                found += [(f"{where}/CMakeCache.txt: {m.group(1)}", path) for path in m.group(3).split(";")]
        self.assertGreater(len(found), 20)
        bad = self.unaccounted(found)
        self.assertEqual(bad, [], "\n".join(["paths found by CMake that the setup does not install "
                                             "(add the package to a scripts/deps/*.apt list):"] + bad))

    def test_every_readme_command_resolves_from_the_setup(self):
        text = (ROOT / "README.md").read_text()
        commands = set()
        # A fence may name its language (```sh); the closing one is bare, at a line's start.
        for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M):
            for line in block.splitlines():
                if line.strip():
                    commands.add(line.split()[0])
                # and commands inside a line's notes: "(every flag: wasinn --help-all, man -l ...)"
                commands.update(re.findall(r"[(,;:]\s*([a-z][a-z0-9_.+-]*) -{1,2}[a-zA-Z]", line))
        for span in re.findall(r"`([^`\n]+)`", text):
            words = span.split()
            # inline commands: `bash scripts/...`, `curl ...`, `man -l ...`, `podman ...`
            if words and re.fullmatch(r"[a-z][a-z0-9_.+-]*", words[0]) and len(words) > 1 and words[1].startswith(("-", "/", "scripts", "build", "@", "'", "\"")):
                commands.add(words[0])
        self.assertIn("bash", commands)
        bad, found = [], []
        guests = {p.stem for p in ROOT.glob("guest/**/*") if p.is_file()}
        for cmd in sorted(commands):
            if (("/" in cmd or cmd in ("cd", "export", "source", "set") or cmd in guests or
                 (ROOT / "build/bin" / cmd).exists() or cmd == "wasinn")):
                continue  # the project's own build/bin/..., scripts/..., its guests; shell builtins
            path = shutil.which(cmd, path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
            if path is None:
                bad.append(f"{cmd}: the README runs it, but it is not installed")
                continue
            found.append((f"README command {cmd}", path))
        bad += self.unaccounted(found)
        self.assertEqual(bad, [], "\n".join(["programs the README runs that the setup does not install:"] + bad))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
