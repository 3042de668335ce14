#!/usr/bin/env python3
"""A training run with a known loss surface, for trying sweeps: its loss decays, epoch by epoch,
towards the Branin function of (x1, x2), whose minimum is 0.397887 at three points. Standard
library only; metric lines go to Signalbox on stdout.

    python3 branin.py --x1=3.14 --x2=2.27 --epochs=30
"""

import argparse
import json
import math
import os
import random
import time


def branin(x1, x2):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1 ** 2 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--x1", type=float, required=True)
    parser.add_argument("--x2", type=float, required=True)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seconds_per_epoch", type=float, default=0.1)
    args, _ = parser.parse_known_args()
    if os.environ.get("SIGNALBOX_EXAMPLE_QUICK"):  # the examples' test: a few short epochs
        args.epochs, args.seconds_per_epoch = min(args.epochs, 4), 0.01
    final = branin(args.x1, args.x2)
    rng = random.Random(hash((args.x1, args.x2)))
    start = final + 60 + 20 * rng.random()
    for epoch in range(args.epochs):
        time.sleep(args.seconds_per_epoch)
        loss = final + (start - final) * math.exp(-epoch / 6) + abs(rng.gauss(0, 0.02))
        print("@signalbox " + json.dumps({"step": epoch, "loss": loss}), flush=True)
    print(f"final loss {loss:.4f}")


if __name__ == "__main__":
    main()
