"""`mx.rnn.io`: sentences to integer ids, and a bucketing iterator over them for language models."""
from __future__ import annotations

import bisect
import random

import numpy as np

from runtime.io import DataBatch, DataDesc, DataIter
from runtime.ndarray import array


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n", start_label=0, unknown_token=None):
    """(each sentence as a list of ids, the vocabulary). Without a vocabulary one is built, ids from
    `start_label` on (skipping `invalid_label`); with one, an unknown word is an error unless
    `unknown_token` names the id that unknown words share (added on first need)."""
    next_id = start_label
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    encoded = []
    for sentence in sentences:
        ids = []
        for word in sentence:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise AssertionError("Unknown token %s" % word)
                if next_id == invalid_label:
                    next_id += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = next_id
                next_id += 1
            ids.append(vocab[word])
        encoded.append(ids)
    return encoded, vocab


class BucketSentenceIter(DataIter):
    """Batches of sentences padded with `invalid_label` to the smallest bucket length that holds
    them; the label is the sentence shifted by one word. Each batch's `bucket_key` is its length."""

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name="data",
                 label_name="softmax_label", dtype="float32", layout="NT"):
        super().__init__()
        if not buckets:  # every length that at least a batch of sentences has
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, count in enumerate(counts) if count >= batch_size]
        buckets.sort()
        discarded = 0
        rows = [[] for _ in buckets]
        used = [False] * len(buckets)
        for sentence in sentences:
            bucket = bisect.bisect_left(buckets, len(sentence))
            if bucket == len(buckets):
                discarded += 1
                continue
            used[bucket] = True
            row = np.full((buckets[bucket],), invalid_label, dtype=dtype)
            row[:len(sentence)] = sentence
            rows[bucket].append(row)
        buckets = [length for length, kept in zip(buckets, used) if kept]
        self.data = [np.asarray(r, dtype=dtype) for r in rows if r]
        print("WARNING: discarded %d sentences longer than the largest bucket." % discarded)
        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = layout.find("N")
        self.layout = layout
        self.default_bucket_key = max(buckets)
        if self.major_axis == 0:
            shape = (batch_size, self.default_bucket_key)
        elif self.major_axis == 1:
            shape = (self.default_bucket_key, batch_size)
        else:
            raise ValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)")
        self.provide_data = [DataDesc(name=data_name, shape=shape, layout=layout)]
        self.provide_label = [DataDesc(name=label_name, shape=shape, layout=layout)]
        # (bucket, first row) of every whole batch
        self.idx = [(i, j) for i, bucket in enumerate(self.data)
                    for j in range(0, len(bucket) - batch_size + 1, batch_size)]
        self.curr_idx = 0
        self.reset()

    def reset(self):
        self.curr_idx = 0
        random.shuffle(self.idx)
        for bucket in self.data:
            np.random.shuffle(bucket)
        self.nddata = []
        self.ndlabel = []
        for bucket in self.data:
            label = np.empty_like(bucket)
            label[:, :-1] = bucket[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(array(bucket, dtype=self.dtype))
            self.ndlabel.append(array(label, dtype=self.dtype))

    def next(self):
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape, layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape, layout=self.layout)])
