"""An MXNet 1.x compatible NDArray/Symbol/Gluon runtime built on NumPy and Numba."""
