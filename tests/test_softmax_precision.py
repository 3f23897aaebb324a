"""softmax computes in the data's precision, as MXNet 1.9.1's kernel: a saturated row's sum rounds to
its largest term, so its probability is exactly 1 (a sort by score then orders such rows as MXNet
does: GluonCV's untrained SSDs rank their boxes so). Expected values recorded from MXNet 1.9.1."""
import numpy as np

from runtime import nd

DATA = [[20.0, 0.5, -3.0, 2.0], [1.0, 2.0, 3.0, 4.0], [40.0, 40.0, -1.0, 0.0], [17.0, 0.0, -30.0, -30.0]]
# mx.nd.softmax(mx.nd.array(DATA)) on MXNet 1.9.1
RECORDED = [[1.0, 3.3982678893096363e-09, 1.0261879540562902e-10, 1.5229980832032197e-08],
            [0.03205860033631325, 0.08714431524276733, 0.23688283562660217, 0.6439142227172852],
            [0.5, 0.5, 7.814411435940252e-19, 2.124177272364483e-18],
            [1.0, 4.139937814784389e-08, 3.873997809109103e-21, 3.873997809109103e-21]]


def test_a_saturated_row_is_exactly_one_as_on_mxnet():
    out = nd.softmax(nd.array(DATA)).asnumpy()
    assert out.dtype == np.float32
    # the last row: 1 + 4e-8 is 1 in float32, and 1 / (1 + 4e-8) rounds to 1 - 6e-8 from float64
    assert out[0, 0] == 1.0 and out[2, 0] == out[2, 1] == 0.5 and out[3, 0] == 1.0
    np.testing.assert_allclose(out, np.array(RECORDED, dtype=np.float32), rtol=1e-6, atol=0)


def test_float64_data_keeps_float64():
    out = nd.softmax(nd.array(DATA, dtype="float64")).asnumpy()
    assert out.dtype == np.float64 and out[0, 0] < 1.0
