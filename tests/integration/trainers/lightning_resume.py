"""A Lightning fit (CPU) killed with SIGKILL between two checkpoints, then run again from its last
one: SignalboxLogger(resume="rewind") hides what the killed life logged past the checkpoint.
argv: the work directory, the life (1: killed at step KILLED_AT, 2: resumed to MAX_STEPS). Each
life writes what it logged, as the trainer saw it, to LIFE.json as it goes."""
import json
import os
import signal
import sys
import time
import urllib.parse
import urllib.request

import lightning as L
import torch
from lightning.pytorch.callbacks import Callback, ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

from signalbox.integrations.lightning import SignalboxLogger

RUN = "lightning-resumed"
EVERY = 5  # steps between checkpoints
KILLED_AT = 13  # the first life's global step when it is killed: its last checkpoint is at 10
MAX_STEPS = 20
work, life = sys.argv[1], int(sys.argv[2])
seen = []


def save_seen():
    with open(os.path.join(work, "%d.json" % life), "w") as f:
        json.dump(seen, f)


def stored_points():
    url = os.environ["SIGNALBOX_COLLECTOR"] + "/api/v1/runs?filter=" + urllib.parse.quote(RUN)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as reply:
        runs = {r["name"]: r for r in json.loads(reply.read())}
    return runs.get(RUN, {}).get("metrics", {}).get("train/loss", {}).get("count", 0)


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, index):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.log("train/loss", loss)
        seen.append((self.global_step, loss.item()))
        save_seen()
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


class KilledBetweenCheckpoints(Callback):
    def on_train_batch_end(self, trainer, module, outputs, batch, index):
        if life == 1 and trainer.global_step == KILLED_AT:
            # Once what it logged past the checkpoint reached the collector: kill -9.
            deadline = time.monotonic() + 60
            while stored_points() < KILLED_AT - 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGKILL)


g = torch.Generator().manual_seed(1)
x = torch.rand(64, 4, generator=g)
data = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)
torch.manual_seed(0)
checkpoints = os.path.join(work, "ckpt")
logger = SignalboxLogger(run=RUN, **({"resume": "rewind"} if life > 1 else {}))
trainer = L.Trainer(max_steps=MAX_STEPS, accelerator="cpu", logger=logger, log_every_n_steps=1,
                    enable_progress_bar=False, enable_model_summary=False, default_root_dir=work,
                    callbacks=[ModelCheckpoint(dirpath=checkpoints, every_n_train_steps=EVERY,
                                               save_last=True, save_top_k=-1),
                               KilledBetweenCheckpoints()])
trainer.fit(Model(), data,
            ckpt_path=os.path.join(checkpoints, "last.ckpt") if life > 1 else None)
print(json.dumps(seen))
