"""`mxnet.rnn.rnn_cell`: every legacy cell class, from the modules that define them."""
from runtime.rnn.base import BaseRNNCell, RNNParams  # noqa: F401
from runtime.rnn.cells import GRUCell, LSTMCell, RNNCell  # noqa: F401
from runtime.rnn.containers import (BidirectionalCell, DropoutCell, ModifierCell, ResidualCell,  # noqa: F401
                                    SequentialRNNCell, ZoneoutCell)
from runtime.rnn.conv_cells import BaseConvRNNCell, ConvGRUCell, ConvLSTMCell, ConvRNNCell  # noqa: F401
from runtime.rnn.fused import FusedRNNCell  # noqa: F401

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell", "SequentialRNNCell",
           "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell", "BidirectionalCell", "BaseConvRNNCell",
           "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]
