"""The activation layers under the module MXNet 1.9.1 defines them in (`mxnet.gluon.nn.activations`),
which its own gluon modules import from; they live in basic_layers here."""
# ruff: noqa: F401  (the names this module re-exports)
from runtime.gluon.nn.basic_layers import ELU, GELU, SELU, Activation, LeakyReLU, PReLU, Swish

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU"]
