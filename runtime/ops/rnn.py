"""The fused recurrent operator `RNN` (gluon.rnn's RNN/LSTM/GRU layers run it)."""
from __future__ import annotations

from runtime.kernels import rnn as k
from runtime.kernels import tensor as tensor_kernels
from runtime.registry import Attr, bool_, choice, declare, float_, gradient_of, int_, optional


def _input_names(attrs):
    names = ["data", "parameters", "state"]
    if attrs.get("mode") == "lstm":
        names.append("state_cell")
    if attrs.get("use_sequence_length"):
        names.append("sequence_length")
    return names


def _visible(attrs):
    if not attrs["state_outputs"]:
        return 1
    return 3 if attrs["mode"] == "lstm" else 2


def _outputs(attrs):
    return _visible(attrs) + 1  # and the dropout scales between layers, which the gradient reads


def _shapes(in_shapes, attrs):
    data = in_shapes[0]
    if data is None:
        raise ValueError("RNN needs the shape of its data (sequence, batch, features)")
    if len(data) != 3:
        raise ValueError("Input data should be rank-3 tensor of dim [sequence length, batch size, input size]")
    steps, batch, features = data
    directions = 2 if attrs["bidirectional"] else 1
    layers, hidden, projection = attrs["num_layers"], attrs["state_size"], attrs["projection_size"]
    recurrent = projection or hidden
    wanted = [data, (k.parameter_count(attrs["mode"], features, hidden, layers, directions, projection),),
              (layers * directions, batch, recurrent)]
    if attrs["mode"] == "lstm":
        wanted.append((layers * directions, batch, hidden))
    if attrs["use_sequence_length"]:
        wanted.append((batch,))
    for i, shape in enumerate(wanted):
        if i < len(in_shapes) and in_shapes[i] is not None and tuple(in_shapes[i]) != tuple(shape):
            raise ValueError("Shape inconsistent, Provided = [%s], inferred shape=(%s)"
                             % (",".join(map(str, in_shapes[i])), ",".join(map(str, shape))))
    outputs = [(steps, batch, directions * recurrent)]
    if attrs["state_outputs"]:
        outputs.append((layers * directions, batch, recurrent))
        if attrs["mode"] == "lstm":
            outputs.append((layers * directions, batch, hidden))
    outputs.append(k.mask_shape(steps, batch, layers, directions, recurrent))
    return wanted[:len(in_shapes)], outputs


def _types(in_dtypes, attrs, names):
    dtype = next((d for d in in_dtypes if d is not None), None)
    completed = [d if d is not None else (dtype if n != "sequence_length" else None) for d, n in zip(in_dtypes, names)]
    return completed, dtype


_RNN = declare("RNN", inputs=("data", "parameters", "state", "state_cell", "sequence_length"), attrs=[
    Attr("state_size", int_, required=True), Attr("num_layers", int_, required=True),
    Attr("bidirectional", bool_, False), Attr("mode", choice("rnn_relu", "rnn_tanh", "lstm", "gru"), required=True),
    Attr("p", float_, 0.0), Attr("state_outputs", bool_, False), Attr("projection_size", optional(int_), None),
    Attr("lstm_state_clip_min", optional(float_), None), Attr("lstm_state_clip_max", optional(float_), None),
    Attr("lstm_state_clip_nan", bool_, False), Attr("use_sequence_length", bool_, False)],
    kernel=k.rnn, infer=_shapes, num_outputs=_outputs, visible_outputs=_visible, wants_training=True, types=_types,
    output_names=("output", "state_output", "statecell_output", "dropout_scales"))
_RNN.input_names = _input_names


@gradient_of("RNN")
def _rnn_gradient(inputs, outputs, out_grads, **attrs):
    visible = _visible(attrs)
    return k.rnn_backward(inputs, out_grads[:visible], outputs[visible], **attrs)


def _parameter_concat_inputs(out_shape, in_shapes, attrs):
    """What the flat vector's size leaves for the parameters of unknown size, in equal parts: they
    are the first layer's i2h weights of each direction, of one shape (as MXNet infers them)."""
    missing = [i for i, s in enumerate(in_shapes) if s is None or 0 in s]
    if not missing:
        return in_shapes
    rest = out_shape[0] - sum(s[0] for i, s in enumerate(in_shapes) if i not in missing)
    if rest <= 0 or rest % len(missing):
        return in_shapes
    return [(rest // len(missing),) if i in missing else s for i, s in enumerate(in_shapes)]


# gluon.rnn's layers join their parameters into RNN's flat vector with it: a concatenation whose
# unknown inputs (a deferred input size) are learned from the vector's size, which RNN decides
declare("_rnn_param_concat", inputs=("*data",), attrs=[Attr("dim", int_, 1)], kernel=tensor_kernels.concat,
        infer_inputs=_parameter_concat_inputs)
