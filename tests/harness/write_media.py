"""A logdir of every kind TensorBoard's dashboards show, from real writers, as training scripts
write them: write_media.py LOGDIR STEPS.

  tbx/  tensorboardX (TF1 summaries): images HWC and CHW, a batch as a grid, histograms from
        values and pre-binned, text, audio, a scalar; add_hparams writes a session beside it
  tb/   TensorBoard's own writer and summary functions (TF2 tensors): histograms, a text table,
        hyperparameters, a scalar; images (PNG and JPEG, two a step) and audio (two clips with
        labels) as tf.summary.image and tf.summary.audio write them, with the images and audio
        plugins' own metadata
"""
import io
import math
import os
import struct
import sys

import numpy as np
from PIL import Image
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.audio import metadata as audio_metadata
from tensorboard.plugins.histogram import summary_v2 as histogram_summary
from tensorboard.plugins.hparams import summary_v2 as hparams_summary
from tensorboard.plugins.image import metadata as image_metadata
from tensorboard.plugins.scalar import summary_v2 as scalar_summary
from tensorboard.plugins.text import summary_v2 as text_summary
from tensorboard.summary.writer.event_file_writer import EventFileWriter
from tensorboard.util import tensor_util
from tensorboardX import SummaryWriter
from tensorboardX.proto import summary_pb2 as tbx_summary

logdir, steps = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(7)


def picture(step, width, height):
    y, x = np.mgrid[0:height, 0:width]
    return np.stack([(x * 255 // max(1, width - 1) + step * 17) % 256,
                     (y * 255 // max(1, height - 1)) % 256,
                     np.full_like(x, (step * 40) % 256)], axis=-1).astype(np.uint8)


def encoded(array, fmt):
    out = io.BytesIO()
    Image.fromarray(array).save(out, format=fmt)
    return out.getvalue()


def tone(step, rate, seconds=0.25):
    t = np.arange(int(rate * seconds)) / rate
    return (0.5 * np.sin(2 * math.pi * (220 + 20 * step) * t)).astype(np.float32)


def wav(samples, rate):
    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    return (b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVE" +
            b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16) +
            b"data" + struct.pack("<I", len(pcm)) + pcm)


tbx = SummaryWriter(os.path.join(logdir, "tbx"), flush_secs=30)
for step in range(steps):
    tbx.add_scalar("loss", math.exp(-step / 5), step)
    tbx.add_image("samples/hwc", picture(step, 48, 32), step, dataformats="HWC")
    tbx.add_image("samples/chw_float", picture(step, 16, 16).transpose(2, 0, 1) / 255.0, step)
    tbx.add_images("batch", np.stack([picture(step + i, 8, 8) for i in range(4)]), step,
                   dataformats="NHWC")
    tbx.add_histogram("weights", rng.normal(step * 0.1, 1.0, 1000), step)
    counts = [0, 3, 5, 2, 0]
    tbx.add_histogram_raw("raw", min=-1.0, max=2.5, num=10, sum=7.5, sum_squares=12.0,
                          bucket_limits=[-2.0, 0.0, 1.0, 2.0, 3.0], bucket_counts=counts,
                          global_step=step)
    tbx.add_text("notes", "step %d: *loss* <b>fell</b>" % step, step)
    # add_audio encodes with soundfile (libsndfile); its Summary.Audio, WAV made here, instead.
    samples = tone(step, 16000)
    tbx._get_file_writer().add_summary(tbx_summary.Summary(value=[tbx_summary.Summary.Value(
        tag="voice", audio=tbx_summary.Summary.Audio(
            sample_rate=16000, num_channels=1, length_frames=len(samples),
            encoded_audio_string=wav(samples, 16000), content_type="audio/wav"))]), step)
tbx.add_hparams({"lr": 0.01, "batch_size": 32, "optimizer": "adam", "augment": True},
                {"hparam/accuracy": 0.9}, name="session")
tbx.close()

tb = EventFileWriter(os.path.join(logdir, "tb"))


def emit(step, *values):
    tb.add_event(event_pb2.Event(step=step, wall_time=1.7e9 + step,
                                 summary=summary_pb2.Summary(value=list(values))))


for step in range(steps):
    first = step == 0  # a tag's metadata goes with its first value only, as TF2 writes it

    def plain(summary):
        value = summary.value[0]
        if not first:
            value.ClearField("metadata")
        return value

    emit(step, plain(scalar_summary.scalar_pb("tb/scalar", 1.0 / (step + 1))))
    emit(step, plain(histogram_summary.histogram_pb("tb/hist", rng.normal(0, 1 + step, 500),
                                                    buckets=20)))
    emit(step, plain(text_summary.text_pb("tb/table", np.array([["step", str(step)],
                                                                ["lr", "0.1"]]))))
    images = summary_pb2.Summary.Value(
        tag="tb/images", tensor=tensor_util.make_tensor_proto(
            [b"40", b"30", encoded(picture(step, 40, 30), "PNG"),
             encoded(picture(step + 1, 40, 30), "JPEG")]))
    if first:
        images.metadata.CopyFrom(image_metadata.create_summary_metadata("tb/images", ""))
    clips = summary_pb2.Summary.Value(
        tag="tb/audio", tensor=tensor_util.make_tensor_proto(
            np.array([[wav(tone(step, 8000), 8000), b"low"],
                      [wav(tone(step + 5, 8000), 8000), b"high"]], dtype=object)))
    if first:
        clips.metadata.CopyFrom(audio_metadata.create_summary_metadata(
            "tb/audio", "", encoding=audio_metadata.Encoding.Value("WAV")))
    emit(step, images, clips)
emit(0, *hparams_summary.hparams_pb({"lr": 0.1, "layers": 4, "activation": "gelu",
                                     "dropout": True}).value)
tb.close()
