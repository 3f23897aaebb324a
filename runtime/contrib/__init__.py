"""`mxnet.contrib`: of MXNet's experimental packages, the state that model code reads (`amp`)."""
