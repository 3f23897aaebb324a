"""Smaller contrib and math operators: finiteness, moments, histogram, index arithmetic, masks."""
from __future__ import annotations

from runtime.kernels import contrib as k
from runtime.registry import Attr, bool_, declare, float_, int_, optional, same_shape, shape_, uniform_types


def _finite_shapes(in_shapes, attrs):
    return in_shapes, [(1,)]


def _moments_shapes(in_shapes, attrs):
    shape = in_shapes[0]
    axes = attrs["axes"]
    axes = range(len(shape)) if axes is None else [a % len(shape) for a in axes]
    if attrs["keepdims"]:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return in_shapes, [out, out]


def _histogram_shapes(in_shapes, attrs):
    if len(in_shapes) > 1 and in_shapes[1] is not None:
        count = in_shapes[1][0] - 1
    elif attrs["bin_cnt"] is not None:
        count = attrs["bin_cnt"]
    else:
        raise ValueError("histogram needs bins or bin_cnt")
    return in_shapes, [(count,), (count + 1,)]


def _histogram_types(in_dtypes, attrs, names):
    return in_dtypes, ["int64", in_dtypes[-1] if len(in_dtypes) > 1 else in_dtypes[0]]


def _ravel_shapes(in_shapes, attrs):
    if in_shapes[0][0] != len(attrs["shape"]):
        raise ValueError("ravel_multi_index: the data's first dimension %d is not the shape's %d"
                         % (in_shapes[0][0], len(attrs["shape"])))
    return in_shapes, [tuple(in_shapes[0][1:])]


def _unravel_shapes(in_shapes, attrs):
    return in_shapes, [(len(attrs["shape"]),) + tuple(in_shapes[0])]


def _index_copy_shapes(in_shapes, attrs):
    return in_shapes, [in_shapes[0]]


def _scalar_bool_types(in_dtypes, attrs, names):
    return in_dtypes, "float32"


def _allclose_shapes(in_shapes, attrs):
    return in_shapes, [()]


def _allclose_types(in_dtypes, attrs, names):
    return in_dtypes, "uint8"


declare("all_finite", attrs=[Attr("init_output", bool_, True)], kernel=k.all_finite, infer=_finite_shapes,
        types=_scalar_bool_types)
declare("multi_all_finite", inputs=("*data",), attrs=[Attr("num_arrays", int_, 1), Attr("init_output", bool_, True)],
        kernel=k.multi_all_finite, infer=_finite_shapes, types=_scalar_bool_types)
declare("moments", attrs=[Attr("axes", optional(shape_), None), Attr("keepdims", bool_, False)], kernel=k.moments,
        infer=_moments_shapes, num_outputs=2)
_HISTOGRAM = declare("_histogram", inputs=("data", "bins"), attrs=[Attr("bin_cnt", optional(int_), None),
                                                      Attr("range", optional(lambda v: tuple(map(float, v))), None)],
        kernel=k.histogram, infer=_histogram_shapes, num_outputs=2, types=_histogram_types)
_HISTOGRAM.input_names = lambda attrs: ["data"] if attrs.get("bin_cnt") is not None else ["data", "bins"]
declare("_ravel_multi_index", attrs=[Attr("shape", shape_, ())], kernel=k.ravel_multi_index, infer=_ravel_shapes,
        aliases=("ravel_multi_index",))
declare("_unravel_index", attrs=[Attr("shape", shape_, ())], kernel=k.unravel_index, infer=_unravel_shapes,
        aliases=("unravel_index",))
declare("_contrib_boolean_mask", inputs=("data", "index"), attrs=[Attr("axis", int_, 0)], kernel=k.boolean_mask,
        allows_empty=True)
def _index_array_shapes(in_shapes, attrs):
    axes = attrs["axes"]
    return in_shapes, [tuple(in_shapes[0]) + (len(in_shapes[0]) if axes is None else len(axes),)]


declare("_contrib_index_array", attrs=[Attr("axes", optional(shape_), None)], kernel=k.index_array,
        infer=_index_array_shapes, types=lambda d, a, n: (d, ["int64"]))
declare("_contrib_index_copy", inputs=("old_tensor", "index_vector", "new_tensor"), kernel=k.index_copy,
        infer=_index_copy_shapes, types=uniform_types(free=("index_vector", "new_tensor")))  # MXNet ties only the output to old_tensor
declare("_contrib_allclose", inputs=("a", "b"), attrs=[Attr("rtol", float_, 1e-5), Attr("atol", float_, 1e-8),
                                                       Attr("equal_nan", bool_, True)],
        kernel=k.allclose, infer=_allclose_shapes, types=_allclose_types)
declare("_contrib_div_sqrt_dim", kernel=k.div_sqrt_dim, infer=same_shape)
# the identity forward, its gradient times `scalar` (a domain-adversarial network's reversal with -1)
declare("_contrib_gradientmultiplier", attrs=[Attr("scalar", float_, 1.0), Attr("is_int", bool_, True)],
        kernel=lambda data, scalar=1.0, is_int=True: data.copy(), infer=same_shape)
declare("rcbrt", kernel=k.rcbrt, infer=same_shape)
declare("degrees", kernel=k.degrees, infer=same_shape)
declare("radians", kernel=k.radians, infer=same_shape)
declare("hard_sigmoid", attrs=[Attr("alpha", float_, 0.2), Attr("beta", float_, 0.5)], kernel=k.hard_sigmoid,
        infer=same_shape)
declare("choose_element_0index", inputs=("lhs", "rhs"), kernel=k.choose_element_0index)
declare("fill_element_0index", inputs=("lhs", "mhs", "rhs"), kernel=k.fill_element_0index)
declare("_onehot_encode", inputs=("lhs", "rhs"), kernel=k.onehot_encode)


# ---- synchronized batch normalization: on the one device this runtime has, batch normalization.
# MXNet 1.9.1's eager SyncBatchNorm leaves the moving statistics as they are in training (recorded),
# unlike BatchNorm, so it is not among the operators whose auxiliary states follow the batch
def _sync_batch_norm(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9, fix_gamma=True,
                     use_global_stats=False, output_mean_var=False, ndev=1, key="", is_train=False):
    from runtime.kernels.nn import batch_norm
    return batch_norm(data, gamma, beta, moving_mean, moving_var, eps=eps, momentum=momentum, fix_gamma=fix_gamma,
                      use_global_stats=use_global_stats, output_mean_var=output_mean_var, axis=1, is_train=is_train)


def _declare_sync_batch_norm():
    from runtime.ops.nn import MOVING_STATISTICS_INITS, _bn_outputs, _channel_params, _with_outputs
    from runtime.registry import str_, uniform_types
    declare("_contrib_SyncBatchNorm", inputs=("data", "gamma", "beta", "moving_mean", "moving_var"),
            attrs=[Attr("eps", float_, 1e-3), Attr("momentum", float_, 0.9), Attr("fix_gamma", bool_, True),
                   Attr("use_global_stats", bool_, False), Attr("output_mean_var", bool_, False),
                   Attr("ndev", int_, 1), Attr("key", str_, required=True)],
            kernel=_sync_batch_norm, aux=("moving_mean", "moving_var"), num_outputs=3, wants_training=True,
            output_names=("output", "mean", "var"), visible_outputs=lambda a: 3 if a["output_mean_var"] else 1,
            input_inits=MOVING_STATISTICS_INITS,
            infer=_with_outputs(_channel_params(5), lambda s, a: _bn_outputs(s, dict(a, axis=1))),
            types=uniform_types(wording="layer", params=("gamma", "beta", "moving_mean", "moving_var")))


_declare_sync_batch_norm()
declare("_contrib_quadratic", attrs=[Attr("a", float_, 0.0), Attr("b", float_, 0.0), Attr("c", float_, 0.0)],
        kernel=k.quadratic, infer=same_shape)
