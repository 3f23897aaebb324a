"""Gluon: blocks, parameters and layers, eager until hybridize()."""
# ruff: noqa: F401  (the names this package re-exports)
from runtime.gluon import nn
from runtime.gluon.block import Block, HybridBlock, SymbolBlock
from runtime.gluon.parameter import Constant, DeferredInitializationError, Parameter, ParameterDict, tensor_types
# the training API: trainer, losses, data loading
from runtime.gluon import data, loss
from runtime.gluon.trainer import Trainer
