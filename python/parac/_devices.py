"""Which devices this build of parac can use."""
import functools

from . import _parac


def built_with_cuda():
    """True when the extension was compiled with parac's CUDA paths."""
    return _parac.built_with_cuda()


@functools.lru_cache(maxsize=1)
def _device_count():
    # The answer does not change during a process: ask the driver once.
    return _parac.cuda_device_count()


def cuda_available():
    """True when device="cuda" can run: CUDA paths compiled in and at least one usable GPU."""
    return built_with_cuda() and _device_count()[0] > 0


def cuda_devices():
    """A dict per usable GPU (name, compute capability, memory); [] without CUDA or GPU."""
    count, _ = _device_count()
    return [_parac.cuda_device_info(ordinal) for ordinal in range(count)]
