"""`mxnet.contrib.amp.amp`: whether mixed precision is on. Model code (GluonNLP's attention cells)
reads `_amp_initialized` to choose float16-safe paths; in this runtime it stays False, as in MXNet
before `amp.init()`, since the runtime does not rewrite operators to lower precision."""
from runtime.base import MXNetError

_amp_initialized = False
_amp_loss_scale_initialized = False


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    raise MXNetError("automatic mixed precision (amp.init) is not available in this runtime: it computes "
                     "every operator in the dtype of its inputs; cast the model with net.cast() instead")
