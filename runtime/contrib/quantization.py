"""`mxnet.contrib.quantization`: MXNet 1.9.1's int8 quantization flow on this runtime, the CPU
(oneDNN) flow: fuse the float graph (runtime.contrib.fuse_mkldnn), quantize it
(runtime.contrib.quantize_pass), calibrate the ranges on the float model
(runtime.contrib.calibration), quantize weights, fold requantize into the fused operators.

`quantize_net_v2` / `quantize_net` take a Gluon HybridBlock and give a SymbolBlock;
`quantize_model_mkldnn` takes a symbol and its parameters; `quantize_graph` and `calib_graph`
are the two halves for callers that run calibration themselves.
"""
from __future__ import annotations

import logging
import os
import tempfile
import warnings
from runtime.base import MXNetError
from runtime.context import Context, cpu
from runtime.contrib import quantize_pass
from runtime.contrib.calibration import (LayerHistogramCollector, LayerOutputMinMaxCollector, combine_histogram,
                                         optimal_thresholds, run_float_model)
from runtime.contrib.fuse_mkldnn import fuse_for_quantization
from runtime.contrib.graph_nodes import from_json, to_json

# MXNet's private names, which scripts reach for
_LayerOutputMinMaxCollector = LayerOutputMinMaxCollector
_LayerHistogramCollector = LayerHistogramCollector
_get_optimal_thresholds = optimal_thresholds

__all__ = ["quantize_net_v2", "quantize_net", "quantize_model", "quantize_model_mkldnn", "quantize_graph",
           "calib_graph", "combine_histogram"]


def _check_options(quantized_dtype, quantize_granularity, quantize_mode="full"):
    if quantized_dtype not in ("int8", "uint8", "auto"):
        raise ValueError("unknown quantized_dtype %s received, expected `int8`, `uint8` or `auto`" % quantized_dtype)
    if quantize_granularity not in ("tensor-wise", "channel-wise"):
        raise ValueError("unknown quantize_granularity %s received, expected `tensor-wise` or `channel-wise`."
                         % quantize_granularity)
    if quantize_mode not in ("full", "smart"):
        raise ValueError("unknown quantize_mode %s received, expected `full` or `smart`" % quantize_mode)


def _check_cpu(ctx):
    if not isinstance(ctx, Context):
        raise ValueError("currently only supports single ctx, while received %s" % str(ctx))
    if ctx.device_type != "cpu":
        raise ValueError("this runtime quantizes for the CPU (MXNet's oneDNN flow) only, got ctx=%s" % ctx)


def _names_list(value, what):
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("%s must be a list of strings, while received type %s" % (what, type(value)))
    return list(value)


def _quantize_symbol(sym, excluded_sym_names, excluded_op_names, offline_params, quantized_dtype, quantize_mode,
                     quantize_granularity):
    heads, _ = from_json(sym.tojson())
    graph = quantize_pass.quantize(heads, excluded_sym_names, excluded_op_names, offline_params, quantized_dtype,
                                   quantize_mode, quantize_granularity)
    return graph.heads, graph.calib_names


def _load(heads):
    from runtime.symbol import load_json
    return load_json(to_json(heads))


def _backend_fused(sym):
    """The symbol after MXNet's MKLDNN_QUANTIZE fusion of its float operators."""
    heads, _ = from_json(sym.tojson())
    return _load(fuse_for_quantization(heads))


def _post_quantized(sym):
    """The symbol after MXNet's MKLDNN_QUANTIZE pass over a quantized graph."""
    heads, _ = from_json(sym.tojson())
    heads = fuse_for_quantization(heads)
    heads = quantize_pass.fold_requantize(heads)
    return _load(quantize_pass.align_concat_scales(heads))


def _quantize_params(qsym, params, th_dict):
    """The quantized model's arguments: weights and biases quantized offline (int8 over their own
    min and max, with `_min` / `_max`), other parameters as they are."""
    from runtime import nd
    quantized = {}
    for name in qsym.list_arguments():
        if name.endswith(("weight_quantize", "bias_quantize")):
            param = params[name[:-len("_quantize")]]
            value, low, high = nd.contrib.quantize(data=param, min_range=nd.min(param), max_range=nd.max(param),
                                                   out_type="int8")
            quantized[name], quantized[name + "_min"], quantized[name + "_max"] = value, low, high
        elif name in params:
            quantized[name] = params[name]
        elif name.endswith(("_min", "_max")) and name[:-4] in th_dict:
            quantized[name] = nd.array([th_dict[name[:-4]][0 if name.endswith("_min") else 1]])
    return quantized


def _new_collector(calib_mode, quantized_dtype, include, custom, logger):
    if calib_mode == "entropy":
        return LayerHistogramCollector(include_layer=include, logger=logger)
    if calib_mode == "naive":
        return LayerOutputMinMaxCollector(quantized_dtype=quantized_dtype, include_layer=include, logger=logger)
    if calib_mode == "customize" and custom is not None:
        return custom
    raise ValueError("unknown calibration mode %s received, expected `none`, `naive`, `entropy` or `customize`"
                     % calib_mode)


def quantize_graph(sym, arg_params, aux_params, ctx=cpu(), excluded_sym_names=None, excluded_op_names=None,
                   calib_mode="entropy", quantized_dtype="int8", quantize_mode="full",
                   quantize_granularity="tensor-wise", LayerOutputCollector=None, logger=None):
    """(quantized symbol, its arguments, aux_params, a collector for calibration or None)."""
    excluded_sym_names = _names_list(excluded_sym_names, "excluded_sym_names")
    excluded_op_names = _names_list(excluded_op_names, "excluded_op_names")
    _check_cpu(ctx)
    _check_options(quantized_dtype, quantize_granularity, quantize_mode)
    if logger:
        logger.info("Quantizing graph")
    heads, calib_names = _quantize_symbol(sym, excluded_sym_names, excluded_op_names, list(arg_params),
                                          quantized_dtype, quantize_mode, quantize_granularity)
    collector = None
    if calib_mode is not None and calib_mode != "none":
        collector = _new_collector(calib_mode, quantized_dtype, calib_names, LayerOutputCollector, logger)
    qsym = _load(heads)
    return qsym, _quantize_params(qsym, arg_params, {}), aux_params, collector


def calib_graph(qsym, arg_params, aux_params, collector, calib_mode="entropy", quantized_dtype="int8",
                logger=logging):
    """The quantized symbol with the collector's ranges written in, and its arguments."""
    if calib_mode is None or calib_mode == "none":
        raise ValueError("please set calibration mode to naive or entropy.")
    if calib_mode == "entropy":
        th_dict = optimal_thresholds(collector.hist_dict, quantized_dtype, logger=logger)
    elif calib_mode in ("naive", "customize"):
        th_dict = collector.min_max_dict
    else:
        raise ValueError("unknown calibration mode %s received, expected `none`, `naive`, `entropy` or `customize`"
                         % calib_mode)
    heads, _ = from_json(qsym.tojson())
    qsym = _load(quantize_pass.set_calibration(heads, th_dict))
    return qsym, _quantize_params(qsym, arg_params, th_dict), aux_params


def _iter_batches(calib_data):
    """Each calibration batch as a list of arrays, the data first: a DataIter's batches, or the
    items of any iterable (a DataLoader's (data, label) pairs, or arrays)."""
    from runtime.io import DataIter
    if isinstance(calib_data, DataIter):
        for batch in calib_data:
            yield list(batch.data)
        return
    for item in calib_data:
        arrays = list(item) if isinstance(item, (list, tuple)) else [item]
        if len(arrays[0].shape) > 4:  # MXNet folds 5-D / 6-D data into the batch
            arrays[0] = arrays[0].reshape((-1,) + tuple(arrays[0].shape[2:]))
        yield arrays


def _provided(calib_data):
    """MXNet's names and shapes of the data a calibration source provides."""
    from runtime.io import DataDesc, DataIter
    if isinstance(calib_data, DataIter):
        return list(calib_data.provide_data)
    try:
        first = next(iter(_iter_batches(calib_data)))
    except TypeError as exc:
        raise TypeError("calib_data is not a valid iterator. %s" % exc) from None
    except StopIteration:
        raise ValueError("calib_data holds no batch") from None
    if len(first) >= 3:
        return [DataDesc("data%d" % i, a.shape) for i, a in enumerate(first)]
    return [DataDesc("data", first[0].shape)] + [DataDesc("data%d" % i, a.shape) for i, a in enumerate(first[1:])]


def _calibrate(fused_sym, args, auxs, data_names, calib_data, collector, include, num_calib_examples, logger):
    batches = _iter_batches(calib_data)
    return run_float_model(fused_sym.tojson(), args, auxs, data_names, batches, collector, include,
                           num_calib_examples, logger)


def quantize_model_mkldnn(sym, arg_params, aux_params, data_names=("data",), label_names=("softmax_label",),
                          ctx=cpu(), excluded_sym_names=None, excluded_op_names=None, calib_mode="entropy",
                          calib_data=None, num_calib_examples=None, quantized_dtype="int8", quantize_mode="smart",
                          quantize_granularity="tensor-wise", logger=None):
    """(quantized symbol, its arguments, aux_params) of a float symbol, MXNet's CPU flow."""
    _check_cpu(ctx)
    fused = _backend_fused(sym)
    qsym, qargs, auxs = _quantize_fused(fused, arg_params, aux_params, list(data_names), excluded_sym_names,
                                        excluded_op_names, calib_mode, calib_data, num_calib_examples,
                                        quantized_dtype, quantize_mode, quantize_granularity, logger)
    return _post_quantized(qsym), qargs, auxs


def _quantize_fused(fused, arg_params, aux_params, data_names, excluded_sym_names, excluded_op_names, calib_mode,
                    calib_data, num_calib_examples, quantized_dtype, quantize_mode, quantize_granularity, logger,
                    custom_collector=None):
    qsym, qargs, auxs, collector = quantize_graph(fused, arg_params, aux_params, cpu(), excluded_sym_names,
                                                  excluded_op_names, calib_mode, quantized_dtype, quantize_mode,
                                                  quantize_granularity, custom_collector, logger)
    if collector is None:
        return qsym, qargs, auxs
    if calib_data is None:
        raise ValueError("calib_data must be provided when calib_mode=%s" % calib_mode)
    include = getattr(collector, "include_layer", None)
    if include is None:
        include = _quantize_symbol(fused, _names_list(excluded_sym_names, "excluded_sym_names"),
                                   _names_list(excluded_op_names, "excluded_op_names"), list(arg_params),
                                   quantized_dtype, quantize_mode, quantize_granularity)[1]
    examples = _calibrate(fused, arg_params, aux_params, data_names, calib_data, collector, include,
                          num_calib_examples, logger)
    if logger:
        logger.info("Collected layer output values from FP32 model using %d examples" % examples)
    return calib_graph(qsym, arg_params, aux_params, collector, calib_mode, quantized_dtype, logger)


def quantize_model(sym, arg_params, aux_params, data_names=("data",), label_names=("softmax_label",), ctx=cpu(),
                   excluded_sym_names=None, excluded_op_names=None, calib_mode="entropy", calib_data=None,
                   num_calib_examples=None, quantized_dtype="int8", quantize_mode="smart",
                   quantize_granularity="tensor-wise", logger=None):
    """MXNet's quantization without the oneDNN fusion. Its quantized Convolution and
    FullyConnected operators are not provided by this runtime: a symbol with them is refused
    (quantize_model_mkldnn quantizes them fused); other quantizable operators are quantized."""
    heads, _ = from_json(sym.tojson())
    from runtime.contrib.graph_nodes import post_order
    plain = sorted({n.name for n in post_order(heads) if n.op in ("Convolution", "FullyConnected")}
                   - set(excluded_sym_names or []))
    if plain and not {"Convolution", "FullyConnected"} <= set(excluded_op_names or []):
        raise MXNetError("quantize_model: the unfused quantized Convolution / FullyConnected operators "
                         "(_contrib_quantized_conv, _contrib_quantized_fully_connected) are not provided by this "
                         "runtime (layers %s); use quantize_model_mkldnn" % ", ".join(plain[:5]))
    _check_cpu(ctx)
    return _quantize_fused(sym, arg_params, aux_params, list(data_names), excluded_sym_names, excluded_op_names,
                           calib_mode, calib_data, num_calib_examples, quantized_dtype, quantize_mode,
                           quantize_granularity, logger)


def _export(network, inputs):
    from runtime.model import load_checkpoint
    with tempfile.TemporaryDirectory() as folder:
        prefix = os.path.join(folder, "tmp")
        network.export(prefix, epoch=0)
        return load_checkpoint(prefix, 0)


def quantize_net_v2(network, quantized_dtype="auto", quantize_mode="full", quantize_granularity="tensor-wise",
                    exclude_layers=None, exclude_layers_match=None, exclude_operators=None, calib_data=None,
                    data_shapes=None, calib_mode="none", num_calib_examples=None, ctx=cpu(),
                    LayerOutputCollector=None, logger=None):
    """A quantized SymbolBlock of a Gluon HybridBlock (MXNet 1.9.1's CPU flow)."""
    from runtime import nd
    from runtime.gluon.block import SymbolBlock
    from runtime.symbol import var

    _check_options(quantized_dtype, quantize_granularity, quantize_mode)
    _check_cpu(ctx)
    if logger:
        logger.info("Export HybridBlock")
    network.hybridize()
    provided = None
    if calib_data is not None:
        provided = _provided(calib_data)
        if not data_shapes:
            data_shapes = list(provided)
    if not data_shapes:
        raise ValueError("data_shapes required")
    data_shapes = list(data_shapes)
    inputs = [nd.zeros(_shape_of(d)) for d in data_shapes]
    while True:
        try:
            network(*inputs)
        except TypeError:
            if len(inputs) <= 1:
                raise
            inputs.pop()  # MXNet drops the trailing inputs (the label) the network does not take
            if provided is not None and len(provided) > len(inputs):
                provided.pop()
            continue
        break
    symnet, args, auxs = _export(network, inputs)

    exclude_layers = list(exclude_layers or [])
    for pattern in exclude_layers_match or []:
        exclude_layers += [layer.name for layer in symnet.get_internals() if pattern in (layer.name or "")]
    if logger:
        logger.info("These layers have been excluded %s" % exclude_layers)
    if calib_mode is not None and calib_mode != "none":
        if calib_data is None:
            raise ValueError("calib_data must be provided when calib_mode=%s" % calib_mode)
        data_names = [d[0] for d in provided]
    else:
        data_names = [_name_of(d) for d in data_shapes]
    data_names = data_names[:len(inputs)]
    fused = _backend_fused(symnet)
    qsym, qargs, qauxs = _quantize_fused(fused, args, auxs, data_names, exclude_layers, list(exclude_operators or []),
                                         calib_mode, calib_data, num_calib_examples, quantized_dtype, quantize_mode,
                                         quantize_granularity, logger, LayerOutputCollector)
    qsym = _post_quantized(qsym)
    net = SymbolBlock(qsym, [var(name) for name in data_names])
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "net-quantized-0000.params")
        saved = {"arg:%s" % k: v.as_in_context(cpu()) for k, v in qargs.items()}
        saved.update({"aux:%s" % k: v.as_in_context(cpu()) for k, v in qauxs.items()})
        nd.save(path, saved)
        net.collect_params().load(path, cast_dtype=True, dtype_source="saved")
    net.collect_params().reset_ctx(ctx)
    return net


def _shape_of(desc):
    return tuple(desc.shape) if hasattr(desc, "shape") else tuple(desc[1])


def _name_of(desc):
    return desc.name if hasattr(desc, "name") else desc[0]


def quantize_net(network, quantized_dtype="auto", quantize_mode="full", exclude_layers=None,
                 exclude_layers_match=None, exclude_operators=None, calib_data=None, data_shapes=None,
                 calib_mode="none", num_calib_examples=None, ctx=cpu(), logger=None):
    """quantize_net_v2 with tensor-wise granularity (MXNet marks it for removal after 2.0)."""
    warnings.warn("WARNING: This will be deprecated after MXNet 2.0, please use quantize_net_v2.")
    return quantize_net_v2(network, quantized_dtype=quantized_dtype, quantize_mode=quantize_mode,
                           quantize_granularity="tensor-wise", exclude_layers=exclude_layers,
                           exclude_layers_match=exclude_layers_match, exclude_operators=exclude_operators,
                           calib_data=calib_data, data_shapes=data_shapes, calib_mode=calib_mode,
                           num_calib_examples=num_calib_examples, ctx=ctx, LayerOutputCollector=None, logger=logger)

