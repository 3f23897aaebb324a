"""GluonNLP 0.10.0's users of the control-flow operators on the runtime against real MXNet 1.9.1:
HybridBeamSearchSampler (contrib.while_loop and contrib.cond) and BiLMEncoder (ELMo's encoder:
contrib.foreach per layer and direction).

    python tools/gluonnlp_control_flow_check.py --mxnet MXNET_PYTHON [--source GLUONNLP_SRC]

BiLMEncoder: two layers of LSTMP cells with cell and projection clipping, seeded parameters, inputs,
states and a mask, eagerly and hybridized; its outputs and final states must equal MXNet's (within
1e-5). HybridBeamSearchSampler: a small decoder (embedding, GRU cell, dense layer over 12 words)
with seeded parameters is searched with beam sizes 1 and 3 from seeded start words and states; the sampler runs eagerly and
hybridized. MXNet's samples, scores and valid lengths come from MXNet_PYTHON (this script run there
with --emit); the runtime's must equal them (scores within 1e-4). MXNet 1.9.1 fails the hybridized
sampler (a type inference error in the cond after the loop): the runtime's hybridized results are
then compared with MXNet's eager ones. GluonNLP is the installed
package, else its sources under GLUONNLP_SRC (its compiled tokenizer, which the sampler never uses,
is a stand-in)."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

VOCAB, UNITS, BATCH, MAX_LENGTH, EOS = 12, 8, 2, 7, 3


def _gluonnlp(source):
    try:
        import gluonnlp
    except ImportError:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from zoo_source import StandIn
        sys.path.insert(0, source)
        sys.modules["gluonnlp.data.fast_bert_tokenizer"] = StandIn("gluonnlp.data.fast_bert_tokenizer")
        import gluonnlp
    return gluonnlp


def search(mx, nlp, beam_size, hybridize):
    class Decoder(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._vocab_size = VOCAB
            with self.name_scope():
                self.embed = mx.gluon.nn.Embedding(VOCAB, UNITS)
                self.cell = mx.gluon.rnn.GRUCell(UNITS, input_size=UNITS)
                self.out = mx.gluon.nn.Dense(VOCAB, in_units=UNITS)

        def hybrid_forward(self, F, step_input, states):
            hidden, new_states = self.cell(self.embed(step_input), states)
            return F.log_softmax(self.out(hidden)), new_states

    decoder = Decoder(prefix="decoder_")
    decoder.initialize()
    rng = np.random.RandomState(21)
    for _, param in sorted(decoder.collect_params().items()):
        param.set_data(mx.nd.array(rng.uniform(-1.5, 1.5, param.shape)))
    decoder.hybridize()
    sampler = nlp.model.HybridBeamSearchSampler(BATCH, beam_size, decoder, EOS, max_length=MAX_LENGTH,
                                                vocab_size=VOCAB, prefix="sampler_")
    if hybridize:
        sampler.hybridize()
    start = mx.nd.array(rng.randint(0, VOCAB, (BATCH,)))
    states = [mx.nd.array(rng.uniform(-1, 1, (BATCH, UNITS)))]
    samples, scores, lengths = sampler(start, states)
    return {"samples": samples.asnumpy().tolist(), "scores": scores.asnumpy().astype(np.float64).tolist(),
            "valid_length": lengths.asnumpy().tolist()}


def encode(mx, nlp, hybridize):
    encoder = nlp.model.BiLMEncoder("lstmpc", 2, 6, 8, proj_size=5, cell_clip=1.0, proj_clip=0.5, prefix="bilm_")
    encoder.initialize()
    rng = np.random.RandomState(31)
    for _, param in sorted(encoder.collect_params().items()):
        param.set_data(mx.nd.array(rng.uniform(-0.6, 0.6, param.shape)))
    if hybridize:
        encoder.hybridize()
    inputs = mx.nd.array(rng.uniform(-1, 1, (4, BATCH, 6)))
    states = encoder.begin_state(lambda shape, **kwargs: mx.nd.array(rng.uniform(-1, 1, shape)), batch_size=BATCH)
    mask = mx.nd.array([[1, 1, 1, 1], [1, 1, 0, 0]])
    out, (forward, backward) = encoder(inputs, states, mask)
    flat = [s for layer in forward + backward for s in layer]
    return {"outputs": [out.asnumpy().astype(np.float64).tolist()] + [s.asnumpy().astype(np.float64).tolist()
                                                                       for s in flat]}


def run_all(mx, nlp):
    found = {"bilm_%s" % mode: encode(mx, nlp, mode == "hybridized") for mode in ("eager", "hybridized")}
    for beam in (1, 3):
        for mode in ("eager", "hybridized"):
            try:
                found["beam%d_%s" % (beam, mode)] = search(mx, nlp, beam, mode == "hybridized")
            except mx.base.MXNetError as exc:  # MXNet 1.9.1 fails the hybridized sampler (cond's type inference)
                found["beam%d_%s" % (beam, mode)] = {"error": str(exc).strip().splitlines()[-1][:200]}
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", help="a Python with MXNet 1.9.1 (and GluonNLP, or --source)")
    parser.add_argument("--source", default="", help="GluonNLP 0.10.0's src folder, if not installed")
    parser.add_argument("--emit", action="store_true", help="(internal) print this Python's results as JSON")
    args = parser.parse_args()
    if args.emit:
        import mxnet as mx
        print(json.dumps(run_all(mx, _gluonnlp(args.source))))
        return 0
    reference = json.loads(subprocess.run([args.mxnet, os.path.abspath(__file__), "--emit", "--source", args.source],
                                          check=True, capture_output=True, text=True).stdout.splitlines()[-1])
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import runtime
    runtime.as_mxnet()
    import mxnet as mx
    found = run_all(mx, _gluonnlp(args.source))
    failures = 0
    for name, expected in reference.items():
        got = found[name]
        if "error" in got:
            failures += 1
            print("%-18s FAILS on the runtime: %s" % (name, got["error"]))
            continue
        against = ""
        if "error" in expected:  # then the same search run eagerly on MXNet is the reference
            print("%-18s fails on MXNet 1.9.1: %s" % (name, expected["error"]))
            expected, against = reference[name.replace("hybridized", "eager")], " (to MXNet's eager results)"
        if name.startswith("bilm"):
            same = len(got["outputs"]) == len(expected["outputs"]) and all(
                np.allclose(a, b, rtol=1e-5, atol=1e-5) for a, b in zip(got["outputs"], expected["outputs"]))
        else:
            same = got["samples"] == expected["samples"] and got["valid_length"] == expected["valid_length"] \
                and np.allclose(got["scores"], expected["scores"], rtol=1e-4, atol=1e-5)
        failures += not same
        print("%-18s %s%s" % (name, "equal" if same else "DIFFER\n  runtime %s\n  mxnet   %s"
                              % (str(got)[:2000], str(expected)[:2000]), against))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
