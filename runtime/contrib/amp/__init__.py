"""`mxnet.contrib.amp`: automatic mixed precision (its state; this runtime computes in the types given)."""
from runtime.contrib.amp import amp
from runtime.contrib.amp.amp import init

__all__ = ["amp", "init"]
