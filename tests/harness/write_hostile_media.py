"""One run of hostile values between good ones, written by TensorBoard's own writer: a PNG
that claims 100,000 x 100,000 pixels, a truncated JPEG, a histogram with NaN edges, one of ten
million buckets, a WAV whose header promises more than it holds, and a 70 MB text.
usage: write_hostile_media.py LOGDIR"""
import struct
import sys

import numpy as np
from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
from tensorboard.plugins.audio import metadata as audio
from tensorboard.plugins.histogram import metadata as histogram
from tensorboard.plugins.image import metadata as image
from tensorboard.plugins.text import metadata as text
from tensorboard.summary.writer.event_file_writer import EventFileWriter
from tensorboard.util import tensor_util



def png(w, h):
    return (b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + struct.pack(">II", w, h) +
            b"\x08\x02\x00\x00\x00" + b"\x00" * 4 + b"\x00\x00\x00\x00IEND\xaeB`\x82")

writer = EventFileWriter(sys.argv[1])


def emit(step, tag, meta, tensor):
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    value.metadata.CopyFrom(meta)
    writer.add_event(event_pb2.Event(step=step, summary=summary_pb2.Summary(value=[value])))


img = image.create_summary_metadata(None, None)
emit(0, "good", img, tensor_util.make_tensor_proto([b"2", b"2", png(2, 2)]))
emit(1, "huge", img, tensor_util.make_tensor_proto([b"1", b"1", png(100000, 100000)]))
emit(2, "cut", img, tensor_util.make_tensor_proto([b"1", b"1", b"\xff\xd8\xff\xe0\x00\x10JFIF"]))
hist = histogram.create_summary_metadata(None, None)
emit(3, "nan_edges", hist, tensor_util.make_tensor_proto(np.array([[np.nan, 1.0, 2.0]])))
Dim = tensor_shape_pb2.TensorShapeProto.Dim
many = tensor_pb2.TensorProto(dtype=2, double_val=[1.0], tensor_shape=tensor_shape_pb2.TensorShapeProto(
    dim=[Dim(size=10**7), Dim(size=3)]))  # one value standing for all 30 million
emit(4, "many_buckets", hist, many)
wav = (b"RIFF" + struct.pack("<I", 36) + b"WAVE" + b"fmt " +
       struct.pack("<IHHIIHH", 16, 1, 1, 8000, 16000, 2, 16) +
       b"data" + struct.pack("<I", 1 << 30) + b"\x00" * 64)  # promises 1 GiB, holds 64 bytes
emit(5, "lying_wav", audio.create_summary_metadata(None, None, encoding=2),
     tensor_util.make_tensor_proto(np.array([[wav, b""]], dtype=object)))
emit(6, "long_text", text.create_summary_metadata(None, None),
     tensor_util.make_tensor_proto([b"x" * (70 << 20)]))
emit(9, "good", img, tensor_util.make_tensor_proto([b"2", b"2", png(2, 2)]))
scalar = summary_pb2.Summary.Value(tag="after", simple_value=1.0)
writer.add_event(event_pb2.Event(step=10, summary=summary_pb2.Summary(value=[scalar])))
writer.close()
