"""Operator declarations, one module per family. Importing this package fills the registry.

How to declare an operator: see `runtime.registry` (`declare`, `Attr` and the attribute parsers).
The kernel lives in `runtime/kernels/` and takes NumPy arrays and parsed attributes only.
"""
from runtime.ops import math, nn, outputs, tensor  # noqa: F401  (declarations register themselves)
from runtime.ops import ctc  # noqa: F401,E402  (the CTC loss operator)
from runtime.ops import columns  # noqa: F401,E402  (im2col, col2im and their gradients)
from runtime.ops import lrn  # noqa: F401,E402  (local response normalization and its gradient)
from runtime.ops import quantization  # noqa: F401,E402  (quantize, dequantize and the int8 operators)
from runtime.ops import attention  # noqa: F401,E402  (contrib.interleaved_matmul_*, multi-head attention)
from runtime.ops import proposal  # noqa: F401,E402  (contrib.Proposal, contrib.MultiProposal)
from runtime.ops import box_coders  # noqa: F401,E402  (contrib.box_decode, contrib.box_encode)
from runtime.ops import deformable  # noqa: F401,E402  (contrib.DeformableConvolution)
from runtime.ops import contrib, image, legacy, linalg, pdf, regions, rnn, spatial  # noqa: F401
from runtime.ops import grad_math, grad_nn, grad_tensor  # noqa: F401  (gradients attach to the declarations above)
from runtime.ops import grad_contrib  # noqa: F401,E402  (gradients of the contrib operators)
from runtime.ops import grad_linalg  # noqa: F401,E402  (gradients of the linalg operators)
from runtime.ops import grad_spatial  # noqa: F401,E402  (gradients of the spatial transformer family)
from runtime.ops import image  # noqa: F401,E402  (nd.image: to_tensor, normalize)
from runtime.ops import multi_tensor  # noqa: F401,E402  (multi_sum_sq)
from runtime.ops import sparse  # noqa: F401,E402  (storage operators; storage rules of the operators above)
from runtime.ops import optimizer  # noqa: F401,E402  (the fused optimizer updates, sgd_update...)
from runtime.ops import control_flow  # noqa: F401,E402  (_foreach, _while_loop, _cond: graphs run by one node)
