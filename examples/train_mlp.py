#!/usr/bin/env python3
"""A real, small training run for Signalbox's demo: a two-layer MLP learns to separate
three interleaved spirals, by minibatch gradient descent with momentum, in pure Python.

It reports train loss and accuracy every step and validation loss and accuracy every
50 steps through the Signalbox Python client (clients/python).
"""

import argparse
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
import signalbox  # noqa: E402


def spirals(n_per_class, classes, noise, rng):
    data = []
    for c in range(classes):
        for i in range(n_per_class):
            r = i / n_per_class
            t = c * 2 * math.pi / classes + r * 4.0 + rng.gauss(0, noise)
            data.append(((r * math.sin(t), r * math.cos(t)), c))
    rng.shuffle(data)
    return data


class MLP:
    def __init__(self, inputs, hidden, outputs, rng):
        scale1, scale2 = math.sqrt(2.0 / inputs), math.sqrt(1.0 / hidden)
        self.w1 = [[rng.gauss(0, scale1) for _ in range(inputs)] for _ in range(hidden)]
        self.b1 = [0.0] * hidden
        self.w2 = [[rng.gauss(0, scale2) for _ in range(hidden)] for _ in range(outputs)]
        self.b2 = [0.0] * outputs
        self.params = [self.w1, self.b1, self.w2, self.b2]
        self.velocity = [self._zeros(p) for p in self.params]

    @staticmethod
    def _zeros(p):
        return [[0.0] * len(row) for row in p] if isinstance(p[0], list) else [0.0] * len(p)

    def forward(self, x):
        h = [math.tanh(sum(w * xi for w, xi in zip(row, x)) + b) for row, b in zip(self.w1, self.b1)]
        z = [sum(w * hi for w, hi in zip(row, h)) + b for row, b in zip(self.w2, self.b2)]
        m = max(z)
        e = [math.exp(v - m) for v in z]
        s = sum(e)
        return h, [v / s for v in e]

    def step(self, batch, lr, momentum=0.9):
        grads = [self._zeros(p) for p in self.params]
        gw1, gb1, gw2, gb2 = grads
        loss = correct = 0.0
        for x, y in batch:
            h, p = self.forward(x)
            loss -= math.log(max(p[y], 1e-12))
            correct += max(range(len(p)), key=p.__getitem__) == y
            dz = [pi - (1.0 if i == y else 0.0) for i, pi in enumerate(p)]
            for i, d in enumerate(dz):
                gb2[i] += d
                row = gw2[i]
                for j, hj in enumerate(h):
                    row[j] += d * hj
            for j, hj in enumerate(h):
                dh = sum(dz[i] * self.w2[i][j] for i in range(len(dz))) * (1 - hj * hj)
                gb1[j] += dh
                row = gw1[j]
                for k, xk in enumerate(x):
                    row[k] += dh * xk
        n = len(batch)
        for p, g, v in zip(self.params, grads, self.velocity):
            if isinstance(p[0], list):
                for pr, gr, vr in zip(p, g, v):
                    for k in range(len(pr)):
                        vr[k] = momentum * vr[k] - lr * gr[k] / n
                        pr[k] += vr[k]
            else:
                for k in range(len(p)):
                    v[k] = momentum * v[k] - lr * g[k] / n
                    p[k] += v[k]
        return loss / n, correct / n

    def evaluate(self, data):
        loss = correct = 0.0
        for x, y in data:
            _, p = self.forward(x)
            loss -= math.log(max(p[y], 1e-12))
            correct += max(range(len(p)), key=p.__getitem__) == y
        return loss / len(data), correct / len(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.02, help="seconds per step, so curves are watchable")
    args = parser.parse_args()
    if os.environ.get("SIGNALBOX_EXAMPLE_QUICK"):  # the examples' test: a few steps, no pauses
        args.steps, args.delay = min(args.steps, 20), 0.0

    rng = random.Random(args.seed)
    data = spirals(400, 3, 0.15, rng)
    train, val = data[:1000], data[1000:]
    model = MLP(2, args.hidden, 3, rng)
    signalbox.init(config=vars(args))
    print("training a %d-hidden MLP on %d spiral points, lr=%g" % (args.hidden, len(train), args.lr))
    for step in range(args.steps):
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * step / args.steps))  # cosine decay
        batch = rng.sample(train, args.batch)
        loss, acc = model.step(batch, lr)
        # epoch: passes over the training set so far, an x axis to compare batch sizes on
        metrics = {"train/loss": loss, "train/accuracy": acc, "lr": lr,
                   "epoch": (step + 1) * args.batch / len(train)}
        if step % 50 == 0 or step == args.steps - 1:
            val_loss, val_acc = model.evaluate(val)
            metrics.update({"val/loss": val_loss, "val/accuracy": val_acc})
            print("step %5d  loss %.4f  val_loss %.4f  val_acc %.3f" % (step, loss, val_loss, val_acc), flush=True)
        signalbox.log(metrics, step=step)
        if args.delay:
            time.sleep(args.delay)
    signalbox.finish()


if __name__ == "__main__":
    main()
