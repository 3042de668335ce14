"""One run of scalars written by tensorboardX, as a training script writes them:
write_tfevents.py RUN_DIR TAGS STEPS SEED [NAN_EVERY]. Values are deterministic per seed."""
import math
import sys

from tensorboardX import SummaryWriter

run_dir, tags, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
nan_every = int(sys.argv[5]) if len(sys.argv) > 5 else 0
writer = SummaryWriter(run_dir, flush_secs=30, max_queue=10000)
for step in range(steps):
    for t in range(tags):
        value = math.exp(-step / (steps / 4 + 1)) * (1 + 0.1 * math.sin(step * 0.37 + t + seed))
        if nan_every and step % nan_every == nan_every - 1 and t == 0:
            value = float("nan")
        writer.add_scalar("metric/%02d" % t, value, step, walltime=1.7e9 + step + seed)
# The run's last record: once a reader shows this tag, it has read all of the run's file.
writer.add_scalar("zz/end", 1.0, steps, walltime=1.7e9 + steps + seed)
writer.close()
