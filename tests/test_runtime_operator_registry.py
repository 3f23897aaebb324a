"""mxnet.operator's view of the operator registry, in MXNet 1.9.1's words (recorded from it)."""
import pytest

import runtime  # noqa: F401  (declares the operators)
from runtime import operator

# get_operator_arguments(name) on MXNet 1.9.1: (names, types)
RECORDED = {
    "Activation": (["data", "act_type"],
                   ["NDArray-or-Symbol", "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required"]),
    "FullyConnected": (["data", "weight", "bias", "num_hidden", "no_bias", "flatten"],
                       ["NDArray-or-Symbol"] * 3 + ["int, required", "boolean, optional, default=0",
                                                    "boolean, optional, default=1"]),
    "LeakyReLU": (["data", "gamma", "act_type", "slope", "lower_bound", "upper_bound"],
                  ["NDArray-or-Symbol"] * 2 + [
                      "{'elu', 'gelu', 'leaky', 'prelu', 'rrelu', 'selu'},optional, default='leaky'",
                      "float, optional, default=0.25", "float, optional, default=0.125",
                      "float, optional, default=0.333999991"]),
    "clip": (["data", "a_min", "a_max"], ["NDArray-or-Symbol", "float, required", "float, required"]),
    "Cast": (["data", "dtype"], ["NDArray-or-Symbol", "{'bfloat16', 'bool', 'float16', 'float32', 'float64', "
                                                      "'int32', 'int64', 'int8', 'uint8'}, required"]),
    "sum": (["data", "axis", "keepdims", "exclude"],
            ["NDArray-or-Symbol", "Shape or None, optional, default=None", "boolean, optional, default=0",
             "boolean, optional, default=0"]),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_operator_arguments_as_mxnet_describes_them(name):
    names, types = RECORDED[name]
    arguments = operator.get_operator_arguments(name)
    assert isinstance(arguments, operator.OperatorArguments)
    assert arguments.names == names and arguments.types == types and arguments.narg == len(names)


def test_all_registered_operators_are_the_built_in_ones_with_aliases():
    names = operator.get_all_registered_operators()
    assert isinstance(names, list)
    assert {"Activation", "BlockGrad", "stop_gradient", "FullyConnected"} <= set(names)
