"""`mxnet.contrib`: of MXNet's experimental packages, the state that model code reads (`amp`) and
the int8 quantization flow (`quantization`)."""
