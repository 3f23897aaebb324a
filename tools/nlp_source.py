"""GluonNLP 0.10.0's models for zoo_check: names, how each is built, and its inputs.

The same small configurations as tools/gluonnlp_models.py: a BERT of 2 layers and 64 units (pooler,
masked-word decoder, classifier), a Transformer encoder-decoder (NMTModel, 2 layers, 64 units),
`standard_lstm_lm_200` and `awd_lstm_lm_600`, over a vocabulary of 50 made-up words. Nothing is
downloaded. Imports neither MXNet nor the runtime itself (the caller has made `import mxnet` mean
the one it wants); GluonNLP is the installed package, else the sources under the folder given.
"""
import collections
import sys

WORDS = 46  # with the vocabulary's 4 special tokens: 50 words


class GluonNLPZoo:
    def __init__(self, source: str = ""):
        try:
            import gluonnlp
        except ImportError:  # from its sources: its compiled tokenizer, which no model runs, a stand-in
            from zoo_source import StandIn
            sys.path.insert(0, source)
            sys.modules["gluonnlp.data.fast_bert_tokenizer"] = StandIn("gluonnlp.data.fast_bert_tokenizer")
            import gluonnlp
        self.nlp = gluonnlp
        self.vocab = gluonnlp.Vocab(collections.Counter("w%d" % i for i in range(WORDS)))
        self.makers = {"bert_2_64": self._bert, "transformer_2_64": self._transformer,
                       "standard_lstm_lm_200": self._language_model, "awd_lstm_lm_600": self._language_model}

    def get_model_list(self):
        return list(self.makers)

    def build(self, name: str):
        return self.makers[name](name)

    def input_candidates(self, net, name: str, random):
        return [self.inputs(net, name, random)]

    def inputs(self, net, name: str, random):
        """Token ids (as float32, as GluonNLP's examples feed them), segment ids, valid lengths,
        masked positions or a language model's begin states: nested lists of NumPy arrays."""
        words = len(self.vocab)
        tokens = lambda *shape: random.randint(0, words, shape).astype("float32")  # noqa: E731
        if name.startswith("bert"):
            return [tokens(2, 12), random.randint(0, 2, (2, 12)).astype("float32"),
                    _floats([12, 7]), _floats([[1, 3], [2, 5]])]
        if name.startswith("transformer"):
            return [tokens(2, 9), tokens(2, 7), _floats([9, 5]), _floats([7, 4])]
        import mxnet as mx
        states = net.begin_state(batch_size=2, func=mx.nd.zeros)
        return [tokens(6, 2), _map(lambda state: random.uniform(-1, 1, state.shape).astype("float32"), states)]

    def _bert(self, name):
        encoder = self.nlp.model.BERTEncoder(num_layers=2, units=64, hidden_size=128, max_length=32, num_heads=4,
                                             dropout=0.1)
        return self.nlp.model.BERTModel(encoder, len(self.vocab), token_type_vocab_size=2, units=64, embed_size=64,
                                        use_pooler=True, use_decoder=True, use_classifier=True)

    def _transformer(self, name):
        encoder, decoder, one_step = self.nlp.model.transformer.get_transformer_encoder_decoder(
            num_layers=2, num_heads=4, units=64, hidden_size=128, max_src_length=32, max_tgt_length=32)
        return self.nlp.model.translation.NMTModel(self.vocab, self.vocab, encoder, decoder, one_step, embed_size=64,
                                                   share_embed=True, tie_weights=True)

    def _language_model(self, name):
        net, _ = self.nlp.model.get_model(name, vocab=self.vocab, pretrained=False)
        return net


def _floats(values):
    import numpy as np
    return np.array(values, dtype="float32")


def _map(function, value):
    if isinstance(value, (list, tuple)):
        return [_map(function, item) for item in value]
    return function(value)
