"""`gluon.rnn`: recurrent cells (stepped or unrolled) and the fused RNN, LSTM and GRU layers."""
# ruff: noqa: F401  (the names this package re-exports)
from runtime.gluon.rnn import rnn_cell, rnn_layer
from runtime.gluon.rnn.rnn_cell import (BidirectionalCell, DropoutCell, GRUCell, HybridRecurrentCell,
                                        HybridSequentialRNNCell, LSTMCell, ModifierCell, RecurrentCell,
                                        ResidualCell, RNNCell, SequentialRNNCell, ZoneoutCell)
from runtime.gluon.rnn.rnn_layer import GRU, LSTM, RNN
