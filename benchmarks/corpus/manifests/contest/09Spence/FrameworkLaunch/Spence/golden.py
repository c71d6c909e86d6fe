"""Spence (scipy.special.spence): the dilogarithm spence(x) = integral from 1 to x of ln(t) / (1 - t) dt = Li2(1 - x)
for x >= 0; nan for x < 0."""

import math

import numpy as np

_PI2_6 = math.pi**2 / 6


def _li2(z: float) -> float:
    """The real dilogarithm Li2(z) = sum z^k / k^2 for z <= 1, mapped into |z| <= 0.5 by its functional equations."""
    if z == 1.0:
        return _PI2_6
    if z == 0.0:
        return 0.0
    if z < -1.0:  # inversion: Li2(z) = -pi^2/6 - ln^2(-z)/2 - Li2(1/z)
        return -_PI2_6 - 0.5 * math.log(-z) ** 2 - _li2(1.0 / z)
    if z < -0.5:  # Li2(z) + Li2(-z) = Li2(z^2) / 2
        return 0.5 * _li2(z * z) - _li2(-z)
    if z > 0.5:  # reflection: Li2(z) = pi^2/6 - ln(z) ln(1 - z) - Li2(1 - z)
        return _PI2_6 - math.log(z) * math.log(1.0 - z) - _li2(1.0 - z)
    total, term, k = 0.0, z, 1
    while abs(term) > 1e-18 * max(abs(total), 1e-300) and k < 200:
        total += term / (k * k)
        k += 1
        term *= z
    return total


def spence(x):
    xf = x.astype(np.float64).reshape(-1)
    out = np.array([_li2(1.0 - v) if v >= 0 else math.nan for v in xf])
    return out.reshape(x.shape).astype(x.dtype)
