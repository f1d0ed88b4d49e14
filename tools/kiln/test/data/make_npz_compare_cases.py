"""Writes the arrays cli_test.sh feeds npz_compare to pin its rule: element by element,
|actual - expected| <= T + T * |expected|, NaN only with NaN, an infinity only with itself,
complex part by part. Not run by `make test`:
  /work/main/.venv/bin/python tools/kiln/test/data/make_npz_compare_cases.py
"""

import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent

expected = np.array([20000.0, 1.0, np.inf, np.nan], dtype=np.float32)
cases = {
    # Within 1e-5 + 1e-5 * |expected| everywhere.
    "close": np.array([20000.1, 1.000001, np.inf, np.nan], dtype=np.float32),
    # 0.2 off a 1: a bound scaled by the largest |expected| (2e4) would let it pass.
    "small_element_off": np.array([20000.0, 1.2, np.inf, np.nan], dtype=np.float32),
    # A finite value where an infinity is expected.
    "infinity_missed": np.array([20000.0, 1.0, 5.0, np.nan], dtype=np.float32),
    # A number where NaN is expected.
    "nan_missed": np.array([20000.0, 1.0, np.inf, 0.0], dtype=np.float32),
}
np.savez(HERE / "npz_compare.expected.npz", output_0=expected,
         complex_0=np.array([1 + 2j, 3 - 4j], dtype=np.complex64))
for name, actual in cases.items():
    np.savez(HERE / f"npz_compare.{name}.npz", output_0=actual,
             complex_0=np.array([1 + 2j, 3 - 4j], dtype=np.complex64))
# An imaginary part off by 0.5.
np.savez(HERE / "npz_compare.imaginary_off.npz", output_0=cases["close"],
         complex_0=np.array([1 + 2.5j, 3 - 4j], dtype=np.complex64))
