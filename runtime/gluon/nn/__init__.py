"""Gluon's neural-network layers."""
# ruff: noqa: F401  (the names this package re-exports)
from runtime.gluon.block import Block, HybridBlock, SymbolBlock
from runtime.gluon.nn.basic_layers import (ELU, GELU, SELU, Activation, BatchNorm, Concurrent, Dense, Dropout,
                                           Embedding, Flatten, GroupNorm, HybridConcurrent, HybridLambda,
                                           HybridSequential, InstanceNorm, Lambda, LayerNorm, LeakyReLU, PReLU,
                                           Sequential, Swish)
from runtime.gluon.nn.conv_layers import (AvgPool1D, AvgPool2D, AvgPool3D, Conv1D, Conv1DTranspose, Conv2D,
                                          Conv2DTranspose, Conv3D, GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D,
                                          GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D, MaxPool1D, MaxPool2D,
                                          MaxPool3D, ReflectionPad2D)
