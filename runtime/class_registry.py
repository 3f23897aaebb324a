"""`mxnet.registry`: name-to-class tables per base class, with the register/alias/create functions
that packages build on them (GluonNLP registers its data sets and models this way).

Names are stored lower-cased; `create` takes a name, an instance (returned as is), a dict of keyword
arguments holding the name, or the JSON text of `[name, kwargs]` or of such a dict.
"""
from __future__ import annotations

import json
import warnings
from typing import Dict

_TABLES: Dict[type, Dict[str, type]] = {}


def _table(base_class) -> Dict[str, type]:
    return _TABLES.setdefault(base_class, {})


def get_registry(base_class) -> Dict[str, type]:
    """A copy of the classes registered under `base_class`, by name."""
    return dict(_table(base_class))


def get_register_func(base_class, nickname: str):
    table = _table(base_class)

    def register(klass, name=None):
        assert issubclass(klass, base_class), "Can only register subclass of %s" % base_class.__name__
        key = (klass.__name__ if name is None else name).lower()
        if key in table:
            old = table[key]
            warnings.warn("New %s %s.%s registered with name %s is overriding existing %s %s.%s"
                          % (nickname, klass.__module__, klass.__name__, key, nickname, old.__module__,
                             old.__name__), UserWarning, stacklevel=2)
        table[key] = klass
        return klass

    register.__doc__ = "Register %s to the %s factory" % (nickname, nickname)
    return register


def get_alias_func(base_class, nickname: str):
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def add(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return add
    return alias


def get_create_func(base_class, nickname: str):
    table = _table(base_class)

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        else:
            name = kwargs.pop(nickname)
        if isinstance(name, base_class):
            assert not args and not kwargs, \
                "%s is already an instance. Additional arguments are invalid" % nickname
            return name
        if isinstance(name, dict):
            return create(**name)
        assert isinstance(name, str), "%s must be of string type" % nickname
        if name.startswith("[") or name.startswith("{"):
            assert not args and not kwargs
            spec = json.loads(name)
            return create(**spec) if isinstance(spec, dict) else create(spec[0], **spec[1])
        key = name.lower()
        assert key in table, "%s is not registered. Please register with %s.register first" % (key, nickname)
        return table[key](*args, **kwargs)

    create.__doc__ = "Create a %s instance from config." % nickname
    return create
