"""parac.matmul: C = A @ B by parac's plan-driven fp32 (or tf32) gemm, on CPU threads or the GPU."""
import numpy as np

from . import _parac
from ._common import DEVICES, threads_for

DTYPES = ("fp32", "tf32")
SCHEDULES = ("auto", "static", "dynamic")


def _float32_matrix(M, what):
    M = np.asarray(M)
    if M.ndim != 2:
        raise ValueError(f"{what} must be 2-D, got shape {M.shape}")
    if not np.issubdtype(M.dtype, np.number) or np.iscomplexobj(M):
        raise TypeError(f"{what} must hold real numbers, got dtype {M.dtype}")
    if 0 in M.shape:
        raise ValueError(f"{what} must not be empty, got shape {M.shape}")
    return np.ascontiguousarray(M, dtype=np.float32)  # float64 (or anything else) converted once


def matmul(A, B, *, dtype="fp32", schedule="auto", device="auto", n_jobs=None, explain=False):
    """A @ B as a float32 array of shape (m, n).

    A (m x k) and B (k x n) are converted once to C-contiguous float32. dtype "fp32": every element
    is accumulated with fused multiply-adds in ascending k from zero, the same bits on every device,
    thread count and schedule; the error against the exact product is that of a float32 dot
    product, |C - AB| <= k * 2^-24 * (|A| |B|) elementwise (to first order; the tests check it
    against a float64 reference). "tf32": inputs rounded to TF32 (10-bit mantissa), error about
    2^-11 * k * (|A| |B|). schedule "static" or "dynamic" (or "auto"): how tile work is handed out.
    explain=True returns (C, plan) with plan a dict of the plan's decisions (tiles, DAG, schedule,
    bytes, flops, the text description under "text").
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    A = _float32_matrix(A, "A")
    B = _float32_matrix(B, "B")
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"matmul: A is {A.shape[0]} x {A.shape[1]} and B {B.shape[0]} x {B.shape[1]}: "
                         "inner dimensions differ")
    C = np.empty((A.shape[0], B.shape[1]), dtype=np.float32)
    plan = _parac.matmul(A, B, C, dtype=dtype, schedule=schedule, device=device, threads=threads_for(n_jobs))
    return (C, plan) if explain else C
