"""`gluon.model_zoo`: predefined networks (`vision`) and the store of their pretrained weights."""
# ruff: noqa: F401  (the names this package re-exports)
from runtime.gluon.model_zoo import model_store, vision
