"""Checks of the installed wheels, run by scripts/wheels.sh from outside the source tree.

usage: python check_wheels.py ROOT DIST DIR [DIR ...]   (DIRs: each distribution's source, relative to ROOT)

1. Every wheel in DIST holds every module of its source packages and declares every entry
   point of its pyproject.toml (a module left out of the package list, or a lost entry point,
   fails here).
2. The installed distributions are imported from site-packages, not from ROOT.
3. ``python -m thunder_core doctor`` lists every thunder_core plugin with no problem.
4. Smoke test: tc.jit with the default executors matches eager; tc.plan for an H100 with
   fake cuda inputs plans; extend's public names resolve; a collective in a jitted function
   is recorded by thunder-distributed (a gloo group of one process).
5. A plugin wheel written for another plugin API, built and installed here, is refused with a
   warning naming both versions and what to upgrade, and makes no claims.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile
import textwrap
import tomllib
import zipfile


def fail(msg):
    print(f"wheel check FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def wheel_for(dist: pathlib.Path, name: str) -> pathlib.Path:
    found = sorted(dist.glob(f"{name.replace('-', '_')}-*.whl"))
    if not found:
        fail(f"no wheel for {name} in {dist}")
    return found[-1]


def check_contents(root: pathlib.Path, dist: pathlib.Path, dirs) -> dict:
    """{distribution name: its thunder_core entry points}, after checking each wheel."""
    declared = {}
    for d in dirs:
        src = root / d
        meta = tomllib.loads((src / "pyproject.toml").read_text())
        name = meta["project"]["name"]
        whl = wheel_for(dist, name)
        names = set(zipfile.ZipFile(whl).namelist())
        includes = meta.get("tool", {}).get("setuptools", {}).get("packages", {}).get("find", {}).get("include", [])
        pkgs = [p.rstrip("*") for p in includes]
        missing = [str(f.relative_to(src)) for p in pkgs for f in sorted((src / p).rglob("*.py"))
                   if "__pycache__" not in f.parts and str(f.relative_to(src)) not in names]
        if missing:
            fail(f"{whl.name} lacks {len(missing)} module(s) of its source: {missing[:5]}")
        eps = meta["project"].get("entry-points", {})
        entry_txt = next((n for n in names if n.endswith(".dist-info/entry_points.txt")), None)
        text = zipfile.ZipFile(whl).read(entry_txt).decode() if entry_txt else ""
        for group, table in eps.items():
            for ep, target in table.items():
                if f"{ep} = {target}" not in text:
                    fail(f"{whl.name} does not declare the entry point {group}:{ep} = {target}")
        declared[name] = eps.get("thunder_core", {})
        print(f"ok  {whl.name}: {len([n for n in names if n.endswith('.py')])} modules, entry points as declared")
    return declared


def check_installed(root: pathlib.Path, declared: dict):
    import importlib.metadata

    import thunder_core

    if pathlib.Path(thunder_core.__file__).resolve().is_relative_to((root / "thunder_core").resolve()):
        fail(f"thunder_core was imported from the source tree ({thunder_core.__file__}), not the wheel")
    installed = importlib.metadata.entry_points(group="thunder_core")
    found = {ep.name: ep.dist.name for ep in installed}
    for name, eps in declared.items():
        for ep in eps:
            if found.get(ep, "").replace("_", "-") != name:
                fail(f"the installed {name} does not register the thunder_core plugin {ep!r}")
    # what must be plugins: the core's built-in modules that implement hooks (the others are their
    # helpers, imported by them) and each executor package's plugin module
    targets = {ep.value for ep in installed}
    wanted = [f"thunder_core.builtin.{f.stem}" for f in sorted((root / "thunder_core" / "builtin").glob("*.py"))
              if f.stem != "__init__" and "hookimpl" in f.read_text()]
    wanted += [f"{p.parent.name}.plugin" for d in ("executors", "plugins") for p in sorted(root.glob(f"{d}/*/*/plugin.py"))]
    lost = [m for m in wanted if m not in targets]
    if lost:
        fail(f"no installed thunder_core entry point loads {lost}: a plugin's entry point is missing")
    out = subprocess.run([sys.executable, "-m", "thunder_core", "doctor"], capture_output=True, text=True)
    print(out.stdout)
    if out.returncode != 0 or "failed" in out.stdout or "disabled" in out.stdout:
        fail(f"doctor: {out.stdout}{out.stderr}")


def smoke():
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    import thunder_core as tc
    from thunder_core import extend

    for name in extend.__all__:
        getattr(extend, name)

    def f(x, w):
        return torch.nn.functional.gelu(x @ w).sum(-1)

    x, w = torch.randn(8, 16), torch.randn(16, 16)
    jf = tc.jit(f)
    torch.testing.assert_close(jf(x, w), f(x, w))
    with FakeTensorMode():
        fx, fw = torch.randn(8, 16, device="cuda"), torch.randn(16, 16, device="cuda")
    plan = tc.plan(f, fx, fw, target="h100")
    print(f"ok  smoke: tc.jit matches eager; {plan!r}")
    smoke_distributed()


def smoke_distributed():
    """thunder-distributed from its wheel: a collective in a jitted function is a symbol (one
    process, a gloo group of one rank)."""
    import torch
    import torch.distributed as dist

    import thunder_core as tc

    def g(x):
        y = x * 2
        dist.all_reduce(y)
        return y + 1

    with tempfile.TemporaryDirectory() as tmp:
        dist.init_process_group("gloo", init_method=f"file://{tmp}/store", rank=0, world_size=1)
        try:
            x = torch.randn(4)
            jg = tc.jit(g)
            torch.testing.assert_close(jg(x), g(x.clone()))
            if "ltorch.dist_all_reduce_(" not in str(tc.last_traces(jg)[-1]):
                fail(f"thunder-distributed did not record dist.all_reduce:\n{tc.last_traces(jg)[-1]}")
        finally:
            dist.destroy_process_group()
    print("ok  smoke: dist.all_reduce in a jitted function is ltorch.dist_all_reduce_ (thunder-distributed)")


MISMATCHED = '''
from thunder_core.extend import API_VERSION, Executor, hookimpl

THUNDER_CORE_API = API_VERSION + 1

@hookimpl
def thunder_core_executors():
    return [Executor("from-the-future", implementations=lambda: {}, api_version=THUNDER_CORE_API)]
'''


def check_api_mismatch():
    """Build and install a plugin wheel declaring the next plugin API; the core must refuse it."""
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "future"
        (src / "thunder_future").mkdir(parents=True)
        (src / "thunder_future" / "__init__.py").write_text("")
        (src / "thunder_future" / "plugin.py").write_text(MISMATCHED)
        (src / "pyproject.toml").write_text(textwrap.dedent('''
            [build-system]
            requires = ["setuptools>=64"]
            build-backend = "setuptools.build_meta"
            [project]
            name = "thunder-future"
            version = "9.0.0"
            dependencies = []
            [project.entry-points.thunder_core]
            future = "thunder_future.plugin"
            [tool.setuptools.packages.find]
            include = ["thunder_future*"]
        '''))
        pip = [sys.executable, "-m", "pip", "-q"]
        subprocess.run([*pip, "install", "--no-deps", "--no-build-isolation", str(src)], check=True)
        try:
            probe = textwrap.dedent('''
                import warnings, torch, thunder_core as tc
                from thunder_core import plugins
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    execs = plugins.registry().executors
                print("|".join(str(x.message) for x in w if "thunder-future" in str(x.message)))
                print("from-the-future" in execs)
                print(tc.jit(lambda x: x * 2)(torch.ones(2)).tolist())
            ''')
            out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
            lines = out.stdout.splitlines()
            if out.returncode != 0 or len(lines) < 3:
                fail(f"the API-mismatch probe failed: {out.stdout}{out.stderr}")
            import thunder_core

            want = (f"thunder-future 9.0.0 was written for plugin API 2, thunder-core {thunder_core.__version__} "
                    f"speaks plugin API 1: upgrade thunder-core")
            if want not in lines[0] or lines[1] != "False" or lines[2] != "[2.0, 2.0]":
                fail(f"a plugin for API 2 was not refused as expected: {lines}")
            print(f"ok  API mismatch refused: {lines[0]}")
        finally:
            subprocess.run([*pip, "uninstall", "-y", "thunder-future"], check=True)


def main():
    root, dist, dirs = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    declared = check_contents(root, dist, dirs)
    check_installed(root, declared)
    smoke()
    check_api_mismatch()
    print("wheel lane: all checks passed")


if __name__ == "__main__":
    main()
