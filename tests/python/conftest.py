"""Shared fixtures of the Python package's tests (run by ctest python.pytest, or `pytest tests/python`
with parac installed)."""
import os

import numpy as np
import pytest

import parac

# On the GPU machine (scripts/gpu-python-check) PARAC_REQUIRE_CUDA=1 turns a missing GPU into an error, so
# the CUDA tests cannot pass by skipping.
if os.environ.get("PARAC_REQUIRE_CUDA") == "1" and not parac.cuda_available():
    raise RuntimeError("PARAC_REQUIRE_CUDA=1 but parac.cuda_available() is False (no GPU, or a CPU-only build)")
requires_cuda = pytest.mark.skipif(not parac.cuda_available(), reason="no usable CUDA GPU in this build/machine")


def blobs(seed, n, centers, dims, std, box=10.0):
    """make_blobs-like points: centre i % centers plus N(0, std^2) per coordinate."""
    rng = np.random.default_rng(seed)
    middle = rng.uniform(-box, box, size=(centers, dims))
    return middle[np.arange(n) % centers] + rng.normal(scale=std, size=(n, dims))


@pytest.fixture
def small_blobs():
    return blobs(0, 600, 4, 2, 0.8)
