"""Record MXNet 1.9.1's gluon.data behaviour and a RecordIO file, for the runtime's tests.

Run with an interpreter that has `mxnet==1.9.1` (the tests never need it):
    PYTHON tools/record_data_cases.py fixtures/training
Writes data.json (batches of DataLoader and dataset views, transform outputs) and records.rec /
records.idx (MXIndexedRecordIO, some payloads holding RecordIO's magic word).
"""
import json
import struct
import sys
from pathlib import Path

import mxnet as mx
import numpy as np
from mxnet.gluon import data as gdata
from mxnet.gluon.data.vision import transforms as T

MAGIC = struct.pack("<I", 0xCED7230A)


def payloads():
    rng = np.random.RandomState(5)
    header = mx.recordio.IRHeader(0, 3.0, 7, 0)
    vector = mx.recordio.IRHeader(0, [1.0, 2.5, -1.0], 8, 1)
    return [b"plain", b"", b"abc" + b"\0" + MAGIC + b"tail", MAGIC + MAGIC + b"xy", MAGIC,
            rng.bytes(37), mx.recordio.pack(header, b"image-bytes"), mx.recordio.pack(vector, b"more")]


def write_records(out):
    writer = mx.recordio.MXIndexedRecordIO(str(out / "records.idx"), str(out / "records.rec"), "w")
    for i, payload in enumerate(payloads()):
        writer.write_idx(i, payload)
    writer.close()


def batches(loader):
    out = []
    for batch in loader:
        items = batch if isinstance(batch, list) else [batch]
        out.append([b.asnumpy().tolist() for b in items])
    return out


def loader_cases():
    x = np.arange(14, dtype="float32").reshape(7, 2)
    y = np.arange(7, dtype="int32")
    ds = gdata.ArrayDataset(x, y)
    cases = {}
    for mode in ("keep", "discard", "rollover"):
        loader = gdata.DataLoader(ds, batch_size=3, last_batch=mode)
        cases[mode] = {"len": len(loader), "epochs": [batches(loader), batches(loader)], "len_after": len(loader)}
    cases["transform_first"] = batches(gdata.DataLoader(ds.transform_first(lambda a: a * 2), batch_size=4))
    cases["transform"] = batches(gdata.DataLoader(ds.transform(lambda a, b: (a + b, b)), batch_size=4))
    cases["shard"] = [[list(map(float, s[0])) for s in ds.shard(3, i)] for i in range(3)]
    cases["take"] = len(ds.take(4))
    cases["filter"] = [int(s[1]) for s in ds.filter(lambda s: s[1] % 2 == 0)]
    scalars = gdata.SimpleDataset([(i, float(i) / 2) for i in range(5)])
    loader = gdata.DataLoader(scalars, batch_size=2)
    cases["scalars"] = {"values": batches(loader), "dtypes": [str(b.dtype.__name__) for b in next(iter(loader))]}
    sampler = gdata.BatchSampler(gdata.SequentialSampler(5, 2), 2, "keep")
    cases["batch_sampler"] = list(sampler)
    return cases


def transform_cases():
    rng = np.random.RandomState(3)
    image = mx.nd.array(rng.randint(0, 256, (7, 10, 3)), dtype="uint8")
    results = {"image": image.asnumpy().tolist()}
    chains = {
        "to_tensor": T.ToTensor(),
        "normalize": T.Compose([T.ToTensor(), T.Normalize((0.4, 0.5, 0.6), (0.2, 0.25, 0.3))]),
        "resize": T.Resize((5, 4)),
        "resize_up": T.Resize(12),
        "resize_keep": T.Resize(4, keep_ratio=True),
        "center_crop": T.CenterCrop((6, 4)),
        "cast": T.Cast("float16"),
    }
    for name, chain in chains.items():
        out = chain(image)
        results[name] = {"shape": out.shape, "dtype": out.dtype.__name__, "values": out.asnumpy().tolist()}
    return results


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    write_records(out)
    reader = mx.recordio.MXIndexedRecordIO(str(out / "records.idx"), str(out / "records.rec"), "r")
    header, rest = mx.recordio.unpack(reader.read_idx(7))
    cases = {"payloads": [p.hex() for p in payloads()], "keys": reader.keys,
             "vector_header": {"flag": header.flag, "label": header.label.tolist(), "id": header.id,
                               "id2": header.id2, "rest": rest.hex()},
             "loader": loader_cases(), "transforms": transform_cases()}
    (out / "data.json").write_text(json.dumps(cases))


if __name__ == "__main__":
    main()
