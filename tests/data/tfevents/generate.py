"""Writes the small TensorBoard logdir the tests read, with real writers.

Run once with tensorboard and tensorboardX installed (python -m venv v && v/bin/pip install
tensorboard tensorboardX); the files it writes are checked in. Every value is exact in float32
so the tests compare exactly: loss = 1 / 2**(step % 8), accuracy = step / 128.

logdir/
  simple/        tensorboardX add_scalar (simple_value), plus a histogram, an image and text
  nested/a/b/    tensorboardX, two files one after the other (rotation)
  tensors/       tensorboard's own protos and EventFileWriter (what PyTorch's SummaryWriter
                 uses): rank-0 tensors in float_val, double_val and tensor_content, the
                 scalars plugin's metadata only on each tag's first value, as tf.summary does
  (root)         one event file directly in the logdir: TensorBoard's run "."
restarted/       tensorboardX: steps 0-9, then a writer restarted with purge_step=5 (its file
                 starts with a SessionLog.START at step 5) logging steps 5-7 as 100 + step
"""
import os
import shutil
import struct
import sys

import numpy as np
from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter
from tensorboardX import SummaryWriter

STEPS = 64
WALL = 1_700_000_000.0


def loss(step):
    return 1.0 / 2 ** (step % 8)


def accuracy(step):
    return step / 128.0


def tensorboardx_run(logdir, steps, suffix):
    writer = SummaryWriter(logdir, filename_suffix=suffix)
    for step in steps:
        writer.add_scalar("train/loss", loss(step), step, walltime=WALL + step)
        writer.add_scalar("train/accuracy", accuracy(step), step, walltime=WALL + step)
    writer.close()


def scalar_tensor(kind, value):
    shape = tensor_shape_pb2.TensorShapeProto()
    if kind == "float_val":
        return tensor_pb2.TensorProto(dtype=1, tensor_shape=shape, float_val=[value])
    if kind == "double_val":
        return tensor_pb2.TensorProto(dtype=2, tensor_shape=shape, double_val=[value])
    return tensor_pb2.TensorProto(dtype=2, tensor_shape=shape, tensor_content=struct.pack("<d", value))


def tensors_run(logdir):
    writer = EventFileWriter(logdir)
    scalars = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"),
        data_class=summary_pb2.DATA_CLASS_SCALAR)
    text = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    for step in range(STEPS):
        values = []
        for kind in ("float_val", "double_val", "tensor_content"):
            value = summary_pb2.Summary.Value(tag="loss/" + kind, tensor=scalar_tensor(kind, loss(step)))
            if step == 0:
                value.metadata.CopyFrom(scalars)
            values.append(value)
        # A rank-0 float under another plugin is not a scalar curve.
        note = summary_pb2.Summary.Value(tag="notes", tensor=scalar_tensor("float_val", 7.0))
        if step == 0:
            note.metadata.CopyFrom(text)
        values.append(note)
        writer.add_event(event_pb2.Event(wall_time=WALL + step, step=step,
                                         summary=summary_pb2.Summary(value=values)))
    writer.close()


def restarted_run(out):
    logdir = os.path.join(out, "restarted")
    shutil.rmtree(logdir, ignore_errors=True)
    tensorboardx_run(logdir, range(10), ".1")
    writer = SummaryWriter(logdir, purge_step=5, filename_suffix=".2")
    for step in range(5, 8):
        writer.add_scalar("train/loss", 100.0 + step, step, walltime=WALL + 100 + step)
    writer.close()


def main(out):
    logdir = os.path.join(out, "logdir")
    shutil.rmtree(logdir, ignore_errors=True)
    tensorboardx_run(os.path.join(logdir, "simple"), range(STEPS), "")
    writer = SummaryWriter(os.path.join(logdir, "simple"), filename_suffix=".extras")
    writer.add_histogram("weights", np.arange(100, dtype=np.float32), 0)
    writer.add_image("sample", np.zeros((3, 8, 8), dtype=np.uint8), 0)
    writer.add_text("config", "lr=0.01", 0)
    writer.close()
    tensorboardx_run(os.path.join(logdir, "nested", "a", "b"), range(0, 32), ".1")
    tensorboardx_run(os.path.join(logdir, "nested", "a", "b"), range(32, STEPS), ".2")
    tensors_run(os.path.join(logdir, "tensors"))
    tensorboardx_run(logdir, range(8), "")
    restarted_run(out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
