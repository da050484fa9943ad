"""Fitting recall's ranker (memory.recall.ranker): the logistic model bench/train_ranker.py
writes. Kept apart from the script so that it is importable (and tested) without running it."""

import numpy as np

# The L2 penalty on the standardised weights (not on the bias).
L2 = 1.0


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Standardise, then logistic regression with L2 by Newton's method; positives weighed
    to balance the classes."""
    means = x.mean(axis=0)
    scales = x.std(axis=0)
    scales[scales < 1e-9] = 1.0
    z = np.hstack([(x - means) / scales, np.ones((len(x), 1))])
    positives = max(float(y.sum()), 1.0)
    sample = np.where(y > 0, (len(y) - positives) / positives, 1.0)
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], L2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -60, 60)))
        gradient = z.T @ (sample * (p - y)) + penalty * w
        hessian = (z.T * (sample * p * (1 - p))) @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return means, scales, w[:-1], float(w[-1])
