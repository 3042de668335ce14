"""What TensorBoard's own reader (its plugin event multiplexer, as its Python loader and
dashboards use it) finds in a logdir, printed as `signalbox-cli parse tfevents` prints the kinds
besides scalars: one JSON object per run and tag of images, histograms, text and audio, then one
per run with hyperparameters. Runs in TensorBoard's virtualenv: tensorboard_kinds.py LOGDIR
"""
import io
import json
import sys
import wave

from PIL import Image
from tensorboard.backend.event_processing import plugin_event_multiplexer
from tensorboard.plugins.hparams import plugin_data_pb2
from tensorboard.util import tensor_util

KINDS = {"images": "image", "histograms": "histogram", "text": "text", "audio": "audio"}


def last_of(kind, array):
    if kind == "image":  # [width, height, image...]
        width, height = Image.open(io.BytesIO(array[2])).size
        return {"width": width, "height": height, "images": len(array) - 2}
    if kind == "histogram":  # [buckets, 3] of left, right, count
        if len(array) == 0:
            return {"min": 0.0, "max": 0.0, "num": 0.0, "buckets": 0}
        return {"min": float(array[0][0]), "max": float(array[-1][1]),
                "num": float(sum(row[2] for row in array)), "buckets": len(array)}
    if kind == "text":
        cells = [c.decode("utf-8", "replace") for c in array.flatten()]
        columns = array.shape[-1] if array.ndim >= 2 else 1
        rows = ["\t".join(cells[i:i + columns]) for i in range(0, len(cells), columns)]
        return {"text": "\n".join(rows)}
    # audio: TensorBoard keeps [clips] (labels dropped) of WAV
    clip = array.flatten()[0]
    with wave.open(io.BytesIO(clip)) as w:
        return {"sample_rate": float(w.getframerate()), "channels": w.getnchannels(),
                "frames": w.getnframes(), "clips": len(array)}


def hparams_of(content):
    data = plugin_data_pb2.HParamsPluginData.FromString(content)
    if not data.HasField("session_start_info"):
        return None
    out = {}
    for name, value in data.session_start_info.hparams.items():
        which = value.WhichOneof("kind")
        out[name] = getattr(value, which) if which != "null_value" else None
    return out


def main():
    every = {"tensors": 0, "images": 0, "audio": 0, "histograms": 0, "scalars": 0}
    multiplexer = plugin_event_multiplexer.EventMultiplexer(size_guidance=every,
                                                            tensor_size_guidance=every)
    multiplexer.AddRunsFromDirectory(sys.argv[1])
    multiplexer.Reload()
    for plugin, kind in KINDS.items():
        for run, tags in sorted(multiplexer.PluginRunToTagToContent(plugin).items()):
            for tag in sorted(tags):
                events = multiplexer.Tensors(run, tag)
                last = events[-1]
                found = {"step": last.step}
                found.update(last_of(kind, tensor_util.make_ndarray(last.tensor_proto)))
                print(json.dumps({"run": run, "tag": tag, "kind": kind, "points": len(events),
                                  "last": found}))
    for run, tags in sorted(multiplexer.PluginRunToTagToContent("hparams").items()):
        for content in tags.values():
            hparams = hparams_of(content)
            if hparams is not None:
                print(json.dumps({"run": run, "kind": "hparams", "hparams": hparams}))


if __name__ == "__main__":
    main()
