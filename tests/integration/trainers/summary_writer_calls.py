"""The same SummaryWriter calls, to tensorboardX's writer or to signalbox.tensorboard's.
usage: summary_writer_calls.py tensorboardX|signalbox LOG_DIR"""
import sys

import numpy as np

if sys.argv[1] == "tensorboardX":
    from tensorboardX import SummaryWriter
else:
    from signalbox.tensorboard import SummaryWriter

rng = np.random.default_rng(0)
writer = SummaryWriter(sys.argv[2])
for step in range(20):
    writer.add_scalar("loss", 1.0 / (step + 1), step)
    writer.add_scalar("lr", 0.1 * 0.9 ** step, global_step=step)
    writer.add_scalars("losses", {"train": 2.0 / (step + 1), "val": 3.0 / (step + 1)}, step)
    if step % 5 == 0:
        writer.add_image("images/one", rng.random((3, 16, 24)), step)  # CHW, floats in [0, 1]
        writer.add_images("images/grid", rng.random((4, 3, 8, 8)), step)
        writer.add_histogram("weights", rng.normal(size=1000), step)
        writer.add_text("notes", "step %d: <b>not markup</b>" % step, step)
        writer.add_audio("sound", 0.5 * np.sin(np.linspace(0, 100, 8000)), step,
                         sample_rate=8000)
writer.add_hparams({"lr": 0.1, "batch": 32, "opt": "sgd"}, {"hparam/accuracy": 0.9})
writer.close()
