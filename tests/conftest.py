import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))


def random_binary(n=30, d=3, seed=0, shift=0.5):
    """A small random two-class problem with some overlap."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + shift * rng.normal(size=n) > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0  # both classes, always
    return X, y


@pytest.fixture
def binary_data():
    return random_binary()
