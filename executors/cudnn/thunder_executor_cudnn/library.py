"""The cuDNN frontend as this executor sees it: importing it, dtypes, architectures.

Nothing here imports ``cudnn`` at module import time: the plugin module must load (and
``doctor`` must be able to say why the executor is unavailable) without it.
"""

from __future__ import annotations

import functools

import torch

#: device profile name -> the ``sm_version`` the graphs are built for
SM_VERSION = {"a100": 80, "h100": 90, "b200": 100}
#: a CUDA profile of another name (a user's DeviceProfile) is planned as an H100
DEFAULT_SM = 90
#: the torch dtypes cuDNN's attention and normalization graphs take as inputs/outputs here
IO_DTYPES = (torch.float16, torch.bfloat16)
NORM_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


@functools.cache
def missing() -> str | None:
    """None when the cuDNN frontend (Python module ``cudnn``, distribution
    ``nvidia-cudnn-frontend``) and its backend library (libcudnn, ``nvidia-cudnn-cu13``)
    load, else why not."""
    try:
        import cudnn
    except Exception as e:  # noqa: BLE001  (any failure to load is a reason, never a crash)
        return (f"the cuDNN frontend cannot be imported ({type(e).__name__}: {e}); "
                f"pip install nvidia-cudnn-frontend nvidia-cudnn-cu13")
    try:
        cudnn.backend_version_string()
    except Exception as e:  # noqa: BLE001
        return f"libcudnn cannot be loaded ({type(e).__name__}: {e}); pip install nvidia-cudnn-cu13"
    return None


def cudnn():
    """The ``cudnn`` module (call :func:`missing` first)."""
    import cudnn as module

    return module


def versions() -> str:
    """``"cuDNN frontend 1.32.0, libcudnn 9.26.1"``."""
    c = cudnn()
    return f"cuDNN frontend {c.__version__}, libcudnn {c.backend_version_string()}"


def data_type(dtype: torch.dtype):
    """The ``cudnn.data_type`` of a torch dtype."""
    c = cudnn()
    return {torch.float16: c.data_type.HALF, torch.bfloat16: c.data_type.BFLOAT16,
            torch.float32: c.data_type.FLOAT}[dtype]


def sm_for(profile) -> int:
    """The architecture a device profile's graphs are built for."""
    return SM_VERSION.get(profile.name, DEFAULT_SM)


def sm_of_device(device: torch.device) -> int:
    """The architecture of a real CUDA device (at run time)."""
    major, minor = torch.cuda.get_device_capability(device)
    return 10 * major + minor
