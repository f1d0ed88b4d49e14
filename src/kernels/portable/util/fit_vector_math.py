"""Fits the polynomial coefficients of vector_math.h (not part of the build).

Minimax fits by Lawson's algorithm (iteratively reweighted least squares on a
Chebyshev grid) in double precision, against mpmath at 40 digits; relative
error for exp's P, erf's S and tanh's T, absolute error for erf's L (it is an
exponent). Prints each polynomial's coefficients, highest degree first, as
vector_math.h evaluates them (Horner), rounded to float.

  /work/main/.venv/bin/python src/kernels/portable/util/fit_vector_math.py
"""
import math

import mpmath as mp
import numpy as np

mp.mp.dps = 40


def lawson(target, degree, low, high, weight, points=4000, iterations=200):
    x = np.cos(np.pi * (np.arange(points) + 0.5) / points) * (high - low) / 2 + (low + high) / 2
    y = np.array([target(v) for v in x])
    w = np.array([weight(v) for v in x])
    basis = np.stack([x**k for k in range(degree + 1)], 1)
    mass = np.ones(points) / points
    for _ in range(iterations):
        root = np.sqrt(mass)
        coefficients, *_ = np.linalg.lstsq(basis * (root * w)[:, None], y * root * w, rcond=None)
        error = np.abs((basis @ coefficients - y) * w)
        mass = mass * error
        mass /= mass.sum()
    return coefficients, error.max()


def exp_p(r):  # (e^r - 1 - r) / r^2
    r = mp.mpf(r)
    return float((mp.exp(r) - 1 - r) / r**2) if r != 0 else 0.5


def erf_s(u):  # erf(x) / x - 1 with u = x^2
    x = mp.sqrt(mp.mpf(u))
    return float(mp.erf(x) / x - 1) if u > 0 else float(2 / mp.sqrt(mp.pi) - 1)


def erf_l(t):  # log(erfc(x)) + x^2 with x = t + 2.4
    x = mp.mpf(t) + mp.mpf("2.4")
    return float(mp.log(mp.erfc(x)) + x * x)


def tanh_t(u):  # (tanh(x) - x) / x^3 with u = x^2
    x = mp.sqrt(mp.mpf(u))
    return float((mp.tanh(x) - x) / x**3) if u > 0 else -1 / 3


FITS = [
    ("exp P(r), |r| <= ln2/2", exp_p, 5, -math.log(2) / 2, math.log(2) / 2, lambda v: 1 / exp_p(v)),
    ("erf S(x^2), x < 0.9", erf_s, 6, 0, 0.81, lambda v: 1 / (erf_s(v) + 1)),
    ("erf L(x - 2.4), 0.9 <= x <= 3.93", erf_l, 8, 0.9 - 2.4, 3.93 - 2.4, lambda v: 1.0),
    ("tanh T(x^2), x < 0.9", tanh_t, 6, 0, 0.81, lambda v: 1 / tanh_t(v)),
]

if __name__ == "__main__":
    for name, target, degree, low, high, weight in FITS:
        coefficients, error = lawson(target, degree, low, high, weight)
        print(f"{name}: max weighted error {error:.3g}")
        print("  " + ", ".join(f"{c:.8e}" for c in np.float32(coefficients)[::-1]))
