"""Build and run GluonNLP 0.10.0's models on the runtime, from the installed, unmodified package.

    python tools/gluonnlp_models.py [--mxnet]

Models (untrained, small inputs, a vocabulary of 50 made-up words, nothing downloaded): a small BERT
(2 layers, 64 units) with pooler, decoder and classifier; a Transformer encoder-decoder (NMTModel,
2 layers, 64 units); `standard_lstm_lm_200` and `awd_lstm_lm_600`. Each is run eagerly, and the
hybridizable ones (BERT, the language models) hybridized too; a line per model says what ran and the
output shapes. With --mxnet, the same script runs on whatever `import mxnet` finds (real MXNet, with
GluonNLP on its path): there too `standard_lstm_lm_200` fails hybridized, as GluonNLP's StandardRNN
calls `nd.Dropout` on the Symbol it is traced with (MXNet's AssertionError, which the runtime gives too).
"""
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def vocabulary(nlp):
    import collections
    words = ["w%d" % i for i in range(46)]
    return nlp.Vocab(collections.Counter(words))


def bert(nlp, mx, vocab):
    encoder = nlp.model.BERTEncoder(num_layers=2, units=64, hidden_size=128, max_length=32, num_heads=4, dropout=0.1)
    net = nlp.model.BERTModel(encoder, len(vocab), token_type_vocab_size=2, units=64, embed_size=64,
                              use_pooler=True, use_decoder=True, use_classifier=True)
    net.initialize(mx.init.Normal(0.02))
    rng = mx.nd.random
    tokens = rng.randint(0, len(vocab), shape=(2, 12)).astype("float32")
    types = mx.nd.zeros((2, 12))
    valid = mx.nd.array([12, 7])
    masked = mx.nd.array([[1, 3], [2, 5]])
    return net, (tokens, types, valid, masked), True


def transformer(nlp, mx, vocab):
    encoder, decoder, one_step = nlp.model.transformer.get_transformer_encoder_decoder(
        num_layers=2, num_heads=4, units=64, hidden_size=128, max_src_length=32, max_tgt_length=32)
    net = nlp.model.translation.NMTModel(vocab, vocab, encoder, decoder, one_step, embed_size=64, share_embed=True,
                             tie_weights=True)
    net.initialize(mx.init.Xavier())
    src = mx.nd.random.randint(0, len(vocab), shape=(2, 9)).astype("float32")
    tgt = mx.nd.random.randint(0, len(vocab), shape=(2, 7)).astype("float32")
    return net, (src, tgt, mx.nd.array([9, 5]), mx.nd.array([7, 4])), False


def language_model(name):
    def make(nlp, mx, vocab):
        net, _ = nlp.model.get_model(name, vocab=vocab, pretrained=False)
        net.initialize(mx.init.Xavier())
        tokens = mx.nd.random.randint(0, len(vocab), shape=(6, 2)).astype("float32")
        hidden = net.begin_state(batch_size=2, func=mx.nd.zeros)
        return net, (tokens, hidden), True
    return make


MODELS = [("bert small", bert), ("transformer (NMTModel)", transformer),
          ("standard_lstm_lm_200", language_model("standard_lstm_lm_200")),
          ("awd_lstm_lm_600", language_model("awd_lstm_lm_600"))]


def shapes(value):
    if isinstance(value, (list, tuple)):
        return [shapes(v) for v in value]
    return tuple(value.shape) if hasattr(value, "shape") else type(value).__name__


def main():
    if "--mxnet" not in sys.argv:
        import runtime
        runtime.as_mxnet()
    import mxnet as mx
    import gluonnlp as nlp
    mx.random.seed(0)
    vocab = vocabulary(nlp)
    failed = 0
    for name, make in MODELS:
        start = time.time()
        stage = "build"
        try:
            net, inputs, hybridizable = make(nlp, mx, vocab)
            stage = "eager"
            eager = net(*inputs)
            line = "eager %s" % (shapes(eager),)
            if hybridizable:
                stage = "hybridized"
                net.hybridize()
                hybrid = net(*inputs)
                line += ", hybridized %s" % (shapes(hybrid),)
            print("%-24s ok   %s (%.1f s)" % (name, line, time.time() - start), flush=True)
        except Exception as error:  # noqa: BLE001 (reported, whatever it is)
            failed += 1
            last = traceback.extract_tb(error.__traceback__)[-1]
            print("%-24s %s-failed %s: %s (%s:%d)" % (name, stage, type(error).__name__, str(error)[:200],
                                                      last.filename, last.lineno), flush=True)
    print("%d of %d models ran" % (len(MODELS) - failed, len(MODELS)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
