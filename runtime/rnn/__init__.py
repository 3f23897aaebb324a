"""`mx.rnn`: MXNet 1.x's legacy symbolic recurrent API (cells that build Symbol graphs step by step,
the fused RNN cell, bucketing sentence iterators and RNN checkpoints)."""
from runtime.rnn import io, rnn_cell  # noqa: F401
from runtime.rnn.checkpoint import do_rnn_checkpoint, load_rnn_checkpoint, rnn_unroll, save_rnn_checkpoint  # noqa: F401
from runtime.rnn.io import BucketSentenceIter, encode_sentences  # noqa: F401
from runtime.rnn.rnn_cell import *  # noqa: F401,F403
from runtime.rnn.rnn_cell import __all__ as _cells

__all__ = list(_cells) + ["rnn_unroll", "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint",
                          "encode_sentences", "BucketSentenceIter"]
