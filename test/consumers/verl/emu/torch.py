"""The few torch operations verl's SFT dataset uses, on numpy (torch cannot be installed here).

Only what multiturn_sft_dataset.py calls: tensor, cat, ones_like, zeros_like, equal, full, arange
and the long dtype; tensors are numpy arrays, whose slicing and `.shape` behave the same for 1-D
integer data.
"""

import numpy as np

long = np.int64
uint8 = np.uint8
Tensor = np.ndarray


def tensor(data, dtype=None):
    return np.asarray(data, dtype=dtype or np.int64)


def cat(parts, dim=0):
    parts = list(parts)
    return np.concatenate(parts, axis=dim) if parts else np.zeros((0,), dtype=np.int64)


concat = cat


def ones_like(t):
    return np.ones_like(t)


def zeros_like(t):
    return np.zeros_like(t)


def equal(a, b):
    return a.shape == b.shape and bool(np.array_equal(a, b))


def full(shape, value, dtype=None):
    return np.full(shape, value, dtype=dtype or np.int64)


def arange(n, dtype=None):
    return np.arange(n, dtype=dtype or np.int64)
