"""Device profiles: what the cost model knows about a device, as data.

A :class:`DeviceProfile` holds a device's memory bandwidth, its FLOP rates per dtype (one
table for library matrix products, which run on tensor cores where there are some, one for
everything else), and the fixed time of a kernel launch. ``"cpu"`` describes this machine
(conservative defaults, refined by ``python -m thunder_core calibrate``); ``"a100"``,
``"h100"`` and ``"b200"`` come from NVIDIA's published datasheet figures (SXM parts, dense,
no sparsity) and are refined the same way when ``calibrate`` runs on such a GPU.

Executors' per-call overheads are declared by each executor per device
(``Executor.dispatch_us``); calibrated ones are stored with the profile (``dispatch_us``).

Example::

    from thunder_core.extend import profile
    h100 = profile("h100")
    h100.flops_per_us(torch.bfloat16, matmul=True)   # 989_000_000.0 (989 TFLOP/s)
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import torch

__all__ = ["DeviceProfile", "PROFILES", "profile", "profile_for_device", "cache_file", "load_calibration"]

_T = 1e3  # TFLOP/s in GFLOP/s


@dataclass(frozen=True)
class DeviceProfile:
    """:param name: what users pass as ``target=`` (``"h100"``).
    :param device_type: the torch device type its tensors live on (``"cpu"``, ``"cuda"``).
    :param bandwidth_gbs: memory bandwidth, GB/s.
    :param matmul_gflops: GFLOP/s of library matrix products per dtype name (``"bfloat16"``;
        ``"tf32"`` is used for float32 when ``torch.get_float32_matmul_precision()`` allows it;
        ``"default"`` for any other dtype).
    :param vector_gflops: GFLOP/s of every other op per dtype name (``"default"`` likewise).
    :param launch_us: the fixed time of one kernel launch, µs.
    :param dispatch_us: measured per-call overheads of executors on this device, by executor
        name (filled by ``calibrate``; an executor's own declaration applies otherwise).
    :param autograd_us: measured host costs of the two ways to differentiate a trace, µs:
        ``"split"`` (one autograd node per call running forward and backward traces) and
        ``"grad_node"`` (PyTorch's autograd, per differentiable op run op by op); filled by
        ``calibrate``, else ``execution/autograd_choice.py``'s defaults apply.
    :param source: where the figures come from.
    """

    name: str
    device_type: str
    bandwidth_gbs: float
    matmul_gflops: Mapping[str, float]
    vector_gflops: Mapping[str, float]
    launch_us: float
    dispatch_us: Mapping[str, float] = field(default_factory=dict)
    autograd_us: Mapping[str, float] = field(default_factory=dict)
    source: str = ""

    def flops_per_us(self, dtype: torch.dtype | None, matmul: bool) -> float:
        """FLOPs this device does per µs on ``dtype`` (a matrix product or not)."""
        table = self.matmul_gflops if matmul else self.vector_gflops
        key = str(dtype).removeprefix("torch.") if dtype is not None else "default"
        if matmul and key == "float32" and "tf32" in table and torch.get_float32_matmul_precision() != "highest":
            key = "tf32"
        return table.get(key, table["default"]) * 1e3

    def replace(self, **changes) -> "DeviceProfile":
        """A copy with some figures changed (``profile("h100").replace(bandwidth_gbs=3000)``)."""
        return dataclasses.replace(self, **changes)

    def __repr__(self):
        return f"<DeviceProfile {self.name} ({self.device_type}, {self.bandwidth_gbs:g} GB/s)>"


#: Built-in profiles. GPU figures: NVIDIA datasheets, SXM form factor, dense tensor-core rates
#: (half of the "with sparsity" numbers). Launch: a CUDA kernel launch seen from the host.
PROFILES: dict[str, DeviceProfile] = {
    # a small CPU, conservatively; `python -m thunder_core calibrate` measures the real one
    "cpu": DeviceProfile("cpu", "cpu", 10.0, {"default": 50.0}, {"default": 50.0}, 1.0,
                         source="defaults for a small CPU; refine with python -m thunder_core calibrate"),
    "a100": DeviceProfile("a100", "cuda", 2039.0,
                          {"float16": 312 * _T, "bfloat16": 312 * _T, "tf32": 156 * _T, "float32": 19.5 * _T,
                           "float64": 19.5 * _T, "int8": 624 * _T, "default": 19.5 * _T},
                          {"float64": 9.7 * _T, "default": 19.5 * _T}, 3.0,
                          source="NVIDIA A100 80GB SXM datasheet"),
    "h100": DeviceProfile("h100", "cuda", 3350.0,
                          {"float16": 989 * _T, "bfloat16": 989 * _T, "float8_e4m3fn": 1979 * _T,
                           "float8_e5m2": 1979 * _T, "tf32": 494 * _T, "float32": 67 * _T, "float64": 67 * _T,
                           "int8": 1979 * _T, "default": 67 * _T},
                          {"float64": 34 * _T, "default": 67 * _T}, 3.0,
                          source="NVIDIA H100 SXM5 80GB datasheet"),
    "b200": DeviceProfile("b200", "cuda", 8000.0,
                          {"float16": 2250 * _T, "bfloat16": 2250 * _T, "float8_e4m3fn": 4500 * _T,
                           "float8_e5m2": 4500 * _T, "tf32": 1100 * _T, "float32": 75 * _T, "float64": 37 * _T,
                           "int8": 4500 * _T, "default": 75 * _T},
                          {"float64": 37 * _T, "default": 75 * _T}, 3.0,
                          source="NVIDIA HGX B200 datasheet"),
}


def cache_file() -> Path:
    """Where ``python -m thunder_core calibrate`` stores its measurements."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "thunder_core" / "machine.json"


def load_calibration() -> dict:
    """{profile name: measured figures} from the calibration file ({} if none or unreadable).
    A file of the first format (flat figures of this CPU) counts as the ``"cpu"`` profile's."""
    try:
        stored = json.loads(cache_file().read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(stored, dict):
        return {}
    if "profiles" in stored:
        return stored["profiles"]
    return {"cpu": stored}


def _calibrated(base: DeviceProfile, m: dict) -> DeviceProfile:
    changes = {k: m[k] for k in ("bandwidth_gbs", "launch_us") if k in m}
    if "flops_g" in m:  # one measured matmul rate: the float32 entry (and the default)
        changes["matmul_gflops"] = {**base.matmul_gflops, "float32": m["flops_g"], "default": m["flops_g"]}
        if base.device_type == "cpu":
            changes["vector_gflops"] = {**base.vector_gflops, "default": m["flops_g"]}
    for key in ("dispatch_us", "autograd_us"):
        if m.get(key):
            changes[key] = dict(m[key])
    return base.replace(**changes, source=f"{base.source}; calibrated") if changes else base


def profile(target: str | DeviceProfile | None = None) -> DeviceProfile:
    """The profile named ``target`` (default ``"cpu"``), with this machine's calibration
    applied when ``calibrate`` measured it; a DeviceProfile is returned as is."""
    if isinstance(target, DeviceProfile):
        return target
    name = (target or "cpu").lower()
    base = PROFILES.get(name)
    if base is None:
        raise ValueError(f"Unknown target {target!r}. Known device profiles: {', '.join(PROFILES)}; or pass a "
                         f"thunder_core.extend.DeviceProfile.")
    m = load_calibration().get(name)
    return _calibrated(base, m) if m else base


def profile_for_device(device: torch.device | str | None) -> DeviceProfile:
    """The profile for tensors on ``device`` of this machine: ``"cpu"``, or the GPU's by its
    name (``torch.cuda.get_device_name``: "NVIDIA H100 80GB HBM3" -> ``"h100"``), else H100."""
    device = torch.device(device) if device is not None else torch.device("cpu")
    if device.type == "cpu":
        return profile("cpu")
    if device.type == "cuda" and torch.cuda.is_available():
        gpu = torch.cuda.get_device_name(device).lower()
        for name, p in PROFILES.items():
            if p.device_type == "cuda" and name in gpu:
                return profile(name)
    return profile("h100") if device.type == "cuda" else profile("cpu")
