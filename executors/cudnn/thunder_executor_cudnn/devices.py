"""The target GPUs as cuDNN describes them, for building graphs ahead of time without one.

cuDNN's deviceless ahead-of-time path (backend 9.8+): a graph made with
``cudnn.pygraph(..., device_property=cudnn.create_device_properties(json))`` is lowered to
libcudnn without a cuDNN handle, so libcudnn validates it and builds its operation graph on
a machine without a GPU or driver. The JSON is the backend's ``CUDNN_BACKEND_DEVICEPROP``
descriptor, normally captured on the target with
``cudnn.create_device_properties(0).serialize()``.

No target GPU was at hand here, so each description below is written from the GPU's
published properties (CUDA's ``cudaDeviceProp`` of the SXM part; memory nominal); the keys
are the 23 the backend requires (it names a missing one). Where the backend needs the device
itself (execution plans: its JIT compiler loads ``libcuda.so.1``), a description is not
enough and nothing here pretends otherwise.

The backend must load without the driver for this to work: libcudnn up to 9.26 does;
from 9.27 its ``libcudnn_engines_runtime_compiled.so.9`` links ``libcuda.so.1`` and every
descriptor finalization loads it, so :func:`properties` raises there without a driver.
"""

from __future__ import annotations

import functools
import json

from .library import cudnn

_COMMON = {  # the same on sm_80, sm_90 and sm_100
    "cudaDeviceId": 0, "pciDeviceId": 0, "isTccDriver": 0, "supportCoopLaunch": 1,
    "driverVer": 13000,  # CUDA 13.0, the oldest driver nvidia-cudnn-cu13 runs on
    "warpSize": 32, "maxThreadsPerBlock": 1024, "maxBlockSize": [1024, 1024, 64],
    "maxGridSize": [2147483647, 65535, 65535], "regsPerBlock": 65536, "maxRegistersPerSM": 65536,
    "maxSharedMemoryPerBlock": 49152, "reservedSharedMemoryPerBlock": 1024,
    "maxThreadsPerSM": 2048, "maxCtasPerSM": 32,
}

#: sm -> the published properties of the profile's GPU (A100/H100/B200 SXM)
DEVICES = {
    80: {**_COMMON, "deviceName": "NVIDIA A100-SXM4-80GB", "deviceVer": 800, "multiProcessorCount": 108,
         "maxSharedMemoryPerBlockOptin": 166912, "totalGlobalMem": 80 << 30, "l2CacheSize": 40 << 20,
         "smClockRateKHz": 1410000, "memClockRateKHz": 1593000},
    90: {**_COMMON, "deviceName": "NVIDIA H100 80GB HBM3", "deviceVer": 900, "multiProcessorCount": 132,
         "maxSharedMemoryPerBlockOptin": 232448, "totalGlobalMem": 80 << 30, "l2CacheSize": 50 << 20,
         "smClockRateKHz": 1980000, "memClockRateKHz": 2619000},
    100: {**_COMMON, "deviceName": "NVIDIA B200", "deviceVer": 1000, "multiProcessorCount": 148,
          "maxSharedMemoryPerBlockOptin": 232448, "totalGlobalMem": 180 << 30, "l2CacheSize": 126 << 20,
          "smClockRateKHz": 1965000, "memClockRateKHz": 3996000},
}


def description(sm: int) -> dict:
    """The device description graphs for ``sm_<sm>`` are built with (the H100's for an
    architecture without one of its own, as :data:`library.DEFAULT_SM` plans it)."""
    return DEVICES.get(sm, DEVICES[90])


@functools.cache
def properties(sm: int) -> tuple:
    """``(cudnn.device_properties, None)`` for ``sm_<sm>``, or ``(None, why not)`` when the
    backend cannot make one here (see the module docstring). Once per architecture."""
    c = cudnn()
    try:
        return c.create_device_properties(json.dumps(description(sm))), None
    except Exception as e:  # noqa: BLE001  (the reason goes into the plan's artifacts)
        if "SUBLIBRARY_LOADING_FAILED" in str(e):
            return None, (f"libcudnn {c.backend_version_string()} cannot load its engine libraries without the NVIDIA "
                          f"driver (from 9.27 they link libcuda.so.1); libcudnn 9.26 can")
        return None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
