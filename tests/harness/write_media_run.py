"""One run of images, histograms and text written by tensorboardX, as a training script logs
them: write_media_run.py RUN_DIR STEPS SEED. Each step: 4 images of 256 x 256 (PNG, as the
writer encodes them), 3 histograms of 1,000 values and 1 text; then, once, the scalar
"zz/end": a reader that shows it has read the run's whole file."""
import sys

import numpy as np
from tensorboardX import SummaryWriter

run_dir, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
writer = SummaryWriter(run_dir, flush_secs=30, max_queue=10000)
y, x = np.mgrid[0:1:256j, 0:1:256j]
for step in range(steps):
    t = step / max(1, steps - 1)
    for i in range(4):
        # A smooth picture that changes with the step (PNGs of a few KB, like a blurry sample).
        image = np.stack([np.sin(6.0 * x + t * 5 + i), np.cos(5.0 * y - t * 3 + i),
                          np.sin(4.0 * (x + y) + seed)], axis=0) * 0.5 + 0.5
        writer.add_image("samples/%d" % i, image, step, walltime=1.7e9 + step)
    for h in range(3):
        writer.add_histogram("weights/%d" % h, rng.normal(t * h, 1.0, 1000), step,
                             walltime=1.7e9 + step)
    writer.add_text("notes", "step %d: loss %.4f" % (step, 1 - t), step, walltime=1.7e9 + step)
writer.add_scalar("zz/end", 1.0, steps, walltime=1.7e9 + steps)
writer.close()
