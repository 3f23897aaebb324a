"""The suite runs every convolution by the method preferred before measuring: the runtime's trials
of its methods in a model's first calls (runtime/kernels/measured.py, tested on their own in
test_runtime_measured.py) would make a process's first outputs differ in their last bits from its
later ones, and would read the choices earlier runs on the machine stored."""
import os

os.environ.setdefault("HYBLINT_RUNTIME_MEASURE", "0")
