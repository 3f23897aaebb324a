"""`mxnet.runtime`: the features this runtime is built with, under the names of MXNet 1.9.1's build
features. Everything computes on the CPU with NumPy's BLAS and LAPACK; sizes are 32-bit as in
MXNet's released wheels."""
from __future__ import annotations

import collections

_ENABLED = {"CPU_SSE", "CPU_SSE2", "CPU_SSE3", "BLAS_OPEN", "LAPACK"}
_NAMES = ("CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3", "CPU_SSE4_1",
          "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C", "JEMALLOC", "BLAS_OPEN",
          "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN", "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE",
          "CXX14", "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG", "TVM_OP")


class Feature:
    def __init__(self, name: str, enabled: bool):
        self.name = name
        self.enabled = enabled

    def __repr__(self) -> str:
        return ("\u2714 " if self.enabled else "\u2716 ") + self.name


def feature_list():
    return [Feature(name, name in _ENABLED) for name in _NAMES]


class Features(collections.OrderedDict):
    """name -> Feature, in MXNet's order."""

    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super().__init__(cls.instance, [(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # filled once, in __new__
        pass

    def __repr__(self) -> str:
        return str(list(self.values()))

    def is_enabled(self, feature_name: str) -> bool:
        feature_name = feature_name.upper()
        if feature_name not in self:
            raise RuntimeError("Feature '{}' is unknown, known features are: {}".format(feature_name, list(self.keys())))
        return self[feature_name].enabled
