"""The operator registry: every operator is declared once, here, and both namespaces
(`runtime.nd` eager, `runtime.sym` deferred) are generated from the declarations.

A declaration names the operator, its aliases, its inputs (auxiliary states among them), its typed
attributes with MXNet's defaults, its number of outputs, its shape inference and its kernel.
Kernels (runtime/kernels/) are plain functions over NumPy arrays that know nothing of this file;
declarations (runtime/ops/) know no array class.

    declare("FullyConnected", inputs=("data", "weight", "bias"),
            attrs=[Attr("num_hidden", int_, required=True), Attr("no_bias", bool_, False),
                   Attr("flatten", bool_, True)],
            kernel=nn.fully_connected, infer=fc_shapes)

The kernel is called as `kernel(*arrays, **attrs)` with parsed attributes, and returns one array
or a tuple of arrays. `infer(in_shapes, attrs)` returns (in_shapes with unknown parameter shapes
filled in, out_shapes); without it, output shapes come from running the kernel on zeros.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from runtime.base import MXNetError, OperatorIndexError

_MISSING = object()


# ---- attribute parsers: each accepts a Python value or MXNet's string form (from JSON graphs)
def _literal(value):
    if isinstance(value, str):
        text = value.strip()
        if text in ("None", ""):
            return None
        if text in ("True", "true"):
            return True
        if text in ("False", "false"):
            return False
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
    return value


def int_(value) -> int:
    value = _literal(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, float)) or int(value) != value:
        raise ValueError("expected an integer, got %r" % (value,))
    return int(value)


def float_(value) -> float:
    value = _literal(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise ValueError("expected a number, got %r" % (value,))
    return float(value)


def floats_(value):
    """A tuple of floats (MXNet's Tuple<float>); one number is a 1-tuple."""
    value = _literal(value)
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return (float(value),)
    if isinstance(value, (list, tuple)):
        return tuple(float_(v) for v in value)
    raise ValueError("expected a tuple of numbers, got %r" % (value,))


def bool_(value) -> bool:
    value = _literal(value)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise ValueError("expected a boolean, got %r" % (value,))


def str_(value) -> str:
    return str(value)


def shape_(value) -> Tuple:
    """A tuple of ints (None allowed, for slice bounds). A single int is a 1-tuple."""
    value = _literal(value)
    if value is None:
        return ()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            v = _literal(v)
            if v is None:
                out.append(None)
            elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                out.append(int(v))
            else:
                raise ValueError("expected a shape of integers, got %r" % (value,))
        return tuple(out)
    raise ValueError("expected a shape tuple, got %r" % (value,))


def optional(parse: Callable) -> Callable:
    def parse_optional(value):
        value = _literal(value)
        return None if value is None else parse(value)
    parse_optional.inner = parse
    return parse_optional


def axis_(value):
    """An int, a tuple of ints, or None (all axes)."""
    value = _literal(value)
    if value is None or value == ():
        return None
    if isinstance(value, (list, tuple)):
        return tuple(int_(v) for v in value)
    return int_(value)


class DTypeNotUnderstood(TypeError):
    """MXNet's Python front end asks NumPy for the dtype and lets its TypeError through."""


def dtype_(value) -> str:
    value = _literal(value)
    try:
        return np.dtype(value).name
    except TypeError:
        raise DTypeNotUnderstood("data type %r not understood" % (value,)) from None


def choice(*options: str) -> Callable:
    def parse_choice(value):
        value = str(_literal(value))
        if value not in options:
            raise ValueError("Invalid Input: '%s', valid values are: {%s}"
                             % (value, ", ".join("'%s'" % o for o in sorted(options))))
        return value
    parse_choice.options = options
    return parse_choice


@dataclass(frozen=True)
class Attr:
    name: str
    parse: Callable[[Any], Any]
    default: Any = None
    required: bool = False
    low: Optional[float] = None             # MXNet's declared bounds (set_lower_bound, set_range)
    high: Optional[float] = None

    def check_bounds(self, value, op_name: str) -> None:
        if value is None or not isinstance(value, (int, float)):
            return
        if self.high is not None:
            if not self.low <= value <= self.high:
                raise MXNetError("value %s for Parameter %s exceed bound [%s,%s]"
                                 % (_number(value), self.name, _number(self.low), _number(self.high)))
        elif self.low is not None and value < self.low:
            raise MXNetError("value %s for Parameter %s should be greater equal to %s"
                             % (_number(value), self.name, _number(self.low)))


    def describe(self) -> str:
        """MXNet's description of the parameter's type (as in get_operator_arguments and the docs)."""
        parse = getattr(self.parse, "inner", self.parse)
        none_too = parse is not self.parse or parse is axis_
        options = _DTYPE_CHOICES if parse is dtype_ else getattr(parse, "options", None)
        if options:
            kind = "{%s}" % ", ".join(([] if not none_too else ["None"]) + ["'%s'" % o for o in sorted(options)])
            if self.required:
                return kind + ", required"
            return kind + ",optional, default='%s'" % self.default
        kind = _KIND_WORDS.get(getattr(parse, "__name__", ""), "string")
        if none_too:
            kind += " or None"
        if self.required:
            return kind + ", required"
        return kind + ", optional, default=" + _default_words(self.default)


_KIND_WORDS = {"int_": "int", "float_": "float", "bool_": "boolean", "shape_": "Shape(tuple)", "axis_": "Shape",
               "str_": "string"}
_DTYPE_CHOICES = ("bfloat16", "bool", "float16", "float32", "float64", "int32", "int64", "int8", "uint8")


def _default_words(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return "%.9g" % np.float32(value)
    if isinstance(value, tuple):
        return "[%s]" % ",".join(map(str, value))
    if isinstance(value, str):
        return "'%s'" % value
    return str(value)


def _number(value) -> str:
    return "%g" % value


# MXNet's TShape holds at most 2^31 - 1 elements unless built with 64-bit sizes (1.9.1's wheels are not)
MAX_ELEMENTS = (1 << 31) - 1


def check_new_shape(shape: Tuple, name: str = "shape") -> None:
    """A shape to allocate: MXNet's checks on its dimensions and its size, in MXNet's words."""
    size = 1
    for dim in shape:
        if dim < -1:
            raise MXNetError("shape dim size must be >= -1, while received %d" % dim)
        size *= max(dim, 0)
    if -1 in shape:  # -1 is an unknown dimension to MXNet: nothing of that shape can be allocated
        raise MXNetError("shape : (%s): a shape to allocate has no unknown (-1) dimension"
                         % ", ".join(map(str, shape)))
    if size >= MAX_ELEMENTS:
        raise MXNetError("[InitShape-input] Size of tensor you are trying to allocate is larger than 2^31 elements. "
                         "Please build with flag USE_INT64_TENSOR_SIZE=1")


def legacy_unknown_error(op_name: str, in_shapes, out_shapes) -> MXNetError:
    """MXNet 1.x outside np_shape() reads a size 0 as unknown (and () as an unknown shape): an eager
    operator that would give such an output fails its shape inference, in these words."""
    def text(shape):
        return "[%s]" % ",".join(str(d if d else -1) for d in shape) if shape else "None"
    return MXNetError("Operator %s inferring shapes failed.\ninput shapes:\n%soutput shapes:\n%s\n"
                      % (op_name, "".join(text(s) + "\n" for s in in_shapes), "\n".join(map(text, out_shapes))))


@dataclass
class OpDef:
    name: str
    inputs: Tuple[str, ...]                 # a single "*data" means any number (num_args)
    attrs: Dict[str, Attr]
    kernel: Callable
    infer: Optional[Callable] = None
    num_outputs: Union[int, Callable[[Dict], int]] = 1
    aux: Tuple[str, ...] = ()               # inputs that are auxiliary states (BatchNorm's moving stats)
    aliases: Tuple[str, ...] = ()
    namespace: str = ""                     # "", "contrib", "linalg", "random", ...
    wants_training: bool = False            # the kernel takes is_train (Dropout, BatchNorm)
    visible_outputs: Optional[Callable[[Dict], int]] = None  # outputs shown to users (BatchNorm: 1)
    no_inputs: bool = False                 # a creation op (zeros, arange): shape from attributes
    check: Optional[Callable] = None        # check(in_shapes, attrs): MXNet's rejections, where `infer` is absent
    types: Optional[Callable] = None        # types(in_dtypes, attrs, names) -> (in_dtypes, out dtype or list)
    validates: bool = True                  # eager calls check their inputs first (set by declare)
    bracket_shapes: bool = False            # MXNet prints this operator's inferred shapes as [a,b]
    kernel_checks_shapes: bool = False      # the kernel rejects bad shapes in MXNet's words: eager calls skip `infer`
    # the kernel gives every output in its own dtype, float64 included (amp_multicast passes a float64
    # input through): eager calls do not bring a float64 result back to the first input's dtype
    exact_dtypes: bool = False
    output_names: Tuple[str, ...] = ()      # MXNet's names for the outputs (BatchNorm: output, mean, var)
    # MXNet registers no names for the inputs (Activation): its monitors call them input0, input1...
    unnamed_inputs: bool = False
    # the gradient does not read the outputs' gradients (Proposal): MXNet then never copies an
    # executor's head gradients for them, whatever their shape
    reads_out_grads: bool = True
    # the vector-Jacobian product: gradient(inputs, outputs, out_grads, **attrs) -> one array (or
    # None: no gradient) per input, all NumPy; None here means MXNet registers no FGradient
    gradient: Optional[Callable] = None
    gradient_selective: bool = False        # the gradient takes `needed` (a flag per input) and skips the others
    # the initializer (MXNet's JSON form) that composing gives an input's variable when it names
    # none (BatchNorm's moving_var: one): Module.init_params and Initializer read it as __init__
    input_inits: Dict[str, str] = field(default_factory=dict)
    # infer_inputs(out_shape, in_shapes, attrs) -> in_shapes completed from the output's shape: for
    # the operators whose inputs' shapes a later operator decides (an unknown size is None or a 0)
    infer_inputs: Optional[Callable] = None
    # MXNet's storage inference: storage(input stypes, attrs) -> the result's stype (or one per
    # output); None: results are dense whatever the inputs (MXNet's dense fallback)
    storage: Optional[Callable] = None
    makes_sparse: bool = False              # dense inputs may give a sparse result (cast_storage)
    # MXNet's shape inference of this operator accepts an output with a size 0, which is otherwise
    # an unknown size outside np_shape() (boolean_mask's shape depends on the values; one_hot's
    # depth 0 and AdaptiveAvgPooling2D's output_size 0 pass as recorded)
    allows_empty: bool = False
    # the graphs a control-flow operator runs (runtime.subgraph.Subgraph: foreach's body...), bound
    # to one node's declaration by with_subgraphs; MXNet's JSON keeps them under the node's `subgraphs`
    subgraphs: Tuple = ()
    # the node's inputs that feed its first graph's auxiliary states are the node's own (a fused
    # convolution's BatchNorm statistics: MXNet's subgraph operators mutate them); control-flow
    # operators keep theirs as arguments
    subgraph_aux: bool = False

    def with_subgraphs(self, graphs: Sequence) -> "OpDef":
        """This declaration with its kernel, inference and gradient reading these graphs (given
        to them as `graphs=`): the operator of one control-flow or fused node."""
        graphs = tuple(graphs)

        def bind(function):
            return None if function is None else functools.partial(function, graphs=graphs)
        aux = self.aux
        if self.subgraph_aux and graphs:
            states = set(graphs[0].symbol.list_auxiliary_states())
            aux = tuple("arg%d" % i for i, name in enumerate(graphs[0].names) if name in states)
        return dataclasses.replace(self, subgraphs=graphs, kernel=bind(self.kernel), infer=bind(self.infer),
                                   types=bind(self.types), gradient=bind(self.gradient), aux=aux)

    @property
    def variadic(self) -> bool:
        return self.inputs[:1] == ("*data",)

    def outputs(self, attrs: Dict) -> int:
        return self.num_outputs(attrs) if callable(self.num_outputs) else self.num_outputs

    def reads_head_gradients(self) -> bool:
        """Whether the gradient reads the outputs' gradients: not when the declaration says so
        (Proposal) or the gradient is a zero one (marked `reads_out_grads = False`); MXNet then
        never checks or copies an executor's head gradients for its outputs."""
        return self.reads_out_grads and getattr(self.gradient, "reads_out_grads", True)

    def visible(self, attrs: Dict) -> int:
        return self.visible_outputs(attrs) if self.visible_outputs else self.outputs(attrs)

    def parse_attrs(self, given: Dict[str, Any]) -> Dict[str, Any]:
        """MXNet's defaults, then the given values parsed; unknown or malformed ones are errors
        (unknown ones only where the operator has parameters at all)."""
        parsed = {}
        for key, value in given.items():
            spec = self.attrs.get(key)
            if spec is None:
                if key.startswith("__") or key in ("name", "attr"):
                    continue  # symbol attributes such as __shape__ travel on the node
                if not self.attrs:
                    # an operator without parameters has no parser in MXNet 1.9.1, which then
                    # ignores whatever is passed (`zeros_like(x, dtype=...)` in GluonCV's CenterNet)
                    continue
                raise MXNetError("Cannot find argument '%s' in operator %s. Valid arguments: %s"
                                 % (key, self.name, ", ".join(self.attrs) or "(none)"))
            try:
                parsed[key] = spec.parse(value)
            except DTypeNotUnderstood as exc:
                raise TypeError(str(exc)) from None
            except (ValueError, TypeError) as exc:
                if str(exc).startswith("Invalid Input: "):  # a choice: MXNet names the call's attributes
                    raise MXNetError('%s, in operator %s(name="", %s)' % (exc, self.name, ", ".join(
                        '%s="%s"' % (k, v) for k, v in given.items() if not k.startswith("__")))) from None
                raise MXNetError("Invalid Parameter format for %s expect %s but value='%s', in operator %s: %s"
                                 % (key, spec.parse.__name__.rstrip("_"), value, self.name, exc)) from None
        for key, spec in self.attrs.items():
            if key not in parsed:
                if spec.required:
                    raise MXNetError("Required parameter %s of %s is not presented, in operator %s"
                                     % (key, self.name, self.name))
                parsed[key] = spec.default
            elif spec.low is not None:
                spec.check_bounds(parsed[key], self.name)
        return parsed

    def input_names(self, attrs: Dict) -> List[str]:
        if self.variadic:
            return ["arg%d" % i for i in range(attrs.get("num_args") or 0)]
        names = list(self.inputs)
        if attrs.get("no_bias") and "bias" in names:
            names.remove("bias")
        return names

    def run(self, arrays: Sequence[np.ndarray], attrs: Dict, is_train: bool = False):
        """Run the kernel; always returns a list of arrays."""
        try:
            if self.wants_training:
                result = self.kernel(*arrays, is_train=is_train, **attrs)
            else:
                result = self.kernel(*arrays, **attrs)
        except (MXNetError, OperatorIndexError):
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError) as exc:  # numpy's AxisError is a ValueError
            raise MXNetError("Error in operator %s: %s" % (self.name, exc)) from None
        except MemoryError:
            raise MXNetError("Error in operator %s: out of memory for its outputs" % self.name) from None
        return list(result) if isinstance(result, (tuple, list)) else [result]

    def infer_shapes(self, in_shapes: List[Optional[Tuple]], attrs: Dict, dtypes=None):
        """(input shapes completed, output shapes). Unknown input shapes are None."""
        if self.check is not None and (not in_shapes or in_shapes[0] is not None):
            try:
                self.check(list(in_shapes), attrs)
            except MXNetError:
                raise
            except (ValueError, IndexError, TypeError, ZeroDivisionError) as exc:
                raise MXNetError("Error in operator %s: %s" % (self.name, exc)) from None
        if self.infer is not None:
            try:
                return self.infer(list(in_shapes), attrs)
            except MXNetError:
                raise
            except (ValueError, IndexError, TypeError, ZeroDivisionError) as exc:
                if isinstance(exc, TypeError) and any(s is None for s in in_shapes):
                    # a rule that needs an input's shape it was not given: its outputs stay unknown
                    return list(in_shapes), [None] * self.outputs(attrs)
                raise MXNetError("Error in operator %s: %s" % (self.name, exc)) from None
        if any(s is None for s in in_shapes):
            missing = [n for n, s in zip(self.input_names(attrs), in_shapes) if s is None]
            raise MXNetError("Error in operator %s: cannot infer the shape of %s" % (self.name, ", ".join(missing)))
        dtypes = dtypes or ["float32"] * len(in_shapes)
        probes = [np.zeros(s, dtype=d) for s, d in zip(in_shapes, dtypes)]
        return list(in_shapes), [o.shape for o in self.run(probes, attrs)]


    def infer_types(self, in_dtypes: List[Optional[str]], attrs: Dict):
        """(input dtypes completed, output dtypes), as MXNet's type inference: unknown ones are None."""
        names = self.input_names(attrs) if not self.variadic else ["arg%d" % i for i in range(len(in_dtypes))]
        rule = self.types or uniform_types()
        try:
            in_dtypes, out = rule([None if d is None else np.dtype(d).name for d in in_dtypes], attrs, names)
        except MXNetError:
            raise
        except (ValueError, TypeError) as exc:
            raise MXNetError("Error in operator %s: %s" % (self.name, exc)) from None
        if not isinstance(out, list):
            chosen = attrs.get("dtype") if "dtype" in self.attrs else None
            out = [chosen or out] * self.outputs(attrs)
        return in_dtypes, out

    def validate(self, arrays: Sequence[np.ndarray], attrs: Dict) -> None:
        """Before an eager call: reject what MXNet's shape and type inference reject."""
        try:
            shapes = [a.shape for a in arrays]
            if self.check is not None:
                self.check(shapes, attrs)
            if self.infer is not None and self.infer is not same_shape and not self.kernel_checks_shapes:
                completed, _ = self.infer(list(shapes), attrs)
                for given, inferred in zip(shapes, completed):
                    if inferred is not None and tuple(given) != tuple(inferred):
                        raise MXNetError("Error in operator %s: %s" % (
                            self.name, shape_inconsistent(given, inferred, self.bracket_shapes)))
        except MXNetError:
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError) as exc:
            reason = str(exc).replace("Incompatible attr at", "Incompatible attr in node  at")
            raise MXNetError("Error in operator %s: %s" % (self.name, reason)) from None
        if arrays and (self.types is not None or len(arrays) > 1):
            first = arrays[0].dtype
            # every rule accepts inputs that are all float32: only other dtypes need the rule run
            if any(a.dtype != first for a in arrays) or (first != np.float32 and self.types is not None):
                try:
                    self.infer_types([a.dtype for a in arrays], attrs)
                except MXNetError as exc:
                    reason = str(exc).replace("Incompatible attr at", "Incompatible attr in node  at")
                    if not reason.startswith("Error in operator "):
                        reason = "Error in operator %s: %s" % (self.name, reason)
                    raise MXNetError(reason) from None


def shape_inconsistent(given, inferred, brackets: bool = False) -> str:
    """MXNet's words for a parameter of the wrong shape; some operators print the shape as a list."""
    text = ",".join(map(str, inferred))
    return "Shape inconsistent, Provided = [%s], inferred shape=%s" % (
        ",".join(map(str, given)), "[%s]" % text if brackets else "(%s)" % (text + ("," if len(inferred) == 1 else "")))


def same_shape(in_shapes, attrs):
    """The output has the (first) input's shape: nothing to check before an eager call."""
    return in_shapes, [in_shapes[0]]


def uniform_types(free: Sequence[str] = (), wording: str = "attr", params: Sequence[str] = ()):
    """MXNet's commonest type rule: the inputs (except the `free` ones, indices) share one dtype,
    which the output takes. `wording` says a mismatch as most operators do ("attr"), or as
    Convolution and BatchNorm ("layer") or Concat do; `params` are BatchNorm-style parameters,
    float32 when the data is float16."""
    def rule(in_dtypes, attrs, names):
        typed = [i for i, name in enumerate(names[:len(in_dtypes)]) if name not in free]
        dtype = next((in_dtypes[i] for i in typed if in_dtypes[i] is not None), None)
        if dtype is None:
            return in_dtypes, None
        param_dtype = "float32" if dtype == "float16" else dtype
        for i in typed:
            want = param_dtype if names[i] in params else dtype
            given = in_dtypes[i]
            if given is None:
                in_dtypes[i] = want
            elif given != want:
                if wording == "layer":
                    raise MXNetError("This layer requires uniform type. Expected '%s' v.s. given '%s' at '%s'"
                                     % (want, given, names[i]))
                if wording == "concat":
                    raise MXNetError("Non-uniform data type in Concat, expected data type %s, got data type %s "
                                     "for input %d" % (want, given, i))
                raise MXNetError("Incompatible attr at %d-th input: expected %s, got %s" % (i, want, given))
        return in_dtypes, dtype
    return rule


REGISTRY: Dict[str, OpDef] = {}


def declare(name: str, inputs: Sequence[str] = ("data",), attrs: Sequence[Attr] = (), *, kernel: Callable,
            aliases: Sequence[str] = (), **options) -> OpDef:
    op = OpDef(name=name, inputs=tuple(inputs), attrs={a.name: a for a in attrs}, kernel=kernel,
               aliases=tuple(aliases), **options)
    if op.variadic and "num_args" not in op.attrs:
        op.attrs["num_args"] = Attr("num_args", int_, None)
    # one input whose shape passes through unchecked: nothing to reject before running the kernel
    op.validates = not (op.check is None and (op.infer is None or op.infer is same_shape)
                        and len(op.inputs) <= 1 and not op.variadic)
    for key in (name, *aliases):
        if key in REGISTRY:
            raise ValueError("operator %s declared twice" % key)
        REGISTRY[key] = op
    return op


def gradient_of(*names: str, selective: bool = False) -> Callable:
    """Decorator: the function is the gradient of the named (already declared) operators. A
    `selective` one takes `needed=` (one flag per input) and may return None for the others."""
    def attach(function: Callable) -> Callable:
        for name in names:
            REGISTRY[name].gradient = function
            REGISTRY[name].gradient_selective = selective
        return function
    return attach


def storage_of(*names: str) -> Callable:
    """Decorator: the function is the storage inference of the named (already declared) operators."""
    def attach(function: Callable) -> Callable:
        for name in names:
            REGISTRY[name].storage = function
        return function
    return attach


def get(name: str) -> OpDef:
    try:
        return REGISTRY[name]
    except KeyError:
        raise MXNetError("Cannot find operator %s" % name) from None


def public_names() -> Dict[str, OpDef]:
    """name -> op for every declared name and alias (a namespace prefix stays in the name)."""
    return dict(REGISTRY)
