"""`gluon.model_zoo.model_store`: pretrained weights are downloaded files, which this runtime does not
fetch; a file already in `root` (named as MXNet names them) is used."""
from __future__ import annotations

import os

from runtime.base import MXNetError


# name -> SHA-1 of its weights file, as MXNet keeps it; other packages add theirs (GluonNLP's
# models register at import), and a file is named NAME-<first 8 hex digits>.params
_model_sha1 = {}


def short_hash(name):
    if name not in _model_sha1:
        raise ValueError("Pretrained model for {name} is not available.".format(name=name))
    return _model_sha1[name][:8]


def get_model_file(name, root=None):
    root = os.path.expanduser(root or os.path.join("~", ".mxnet", "models"))
    if os.path.isdir(root):
        for entry in sorted(os.listdir(root)):
            if entry.startswith(name + "-") and entry.endswith(".params"):
                return os.path.join(root, entry)
    raise MXNetError("Pretrained weights for %s are not in %s: this runtime does not download them" % (name, root))


def purge(root=None):
    root = os.path.expanduser(root or os.path.join("~", ".mxnet", "models"))
    for entry in os.listdir(root) if os.path.isdir(root) else []:
        if entry.endswith(".params"):
            os.remove(os.path.join(root, entry))
