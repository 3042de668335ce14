"""A small PyTorch Lightning fit (CPU) logging through SignalboxLogger; prints what it logged."""
import json
import os
import sys

import lightning as L
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

from signalbox.integrations.lightning import SignalboxLogger

seen = {"train/loss": [], "val/loss": []}


class Model(L.LightningModule):
    def __init__(self, lr=0.05, hidden=8):
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Sequential(torch.nn.Linear(4, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, 1))

    def training_step(self, batch, index):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.log("train/loss", loss)
        seen["train/loss"].append((self.global_step, loss.item()))
        return loss

    def validation_step(self, batch, index):
        x, y = batch
        self.log("val/loss", torch.nn.functional.mse_loss(self.net(x), y))

    def on_train_epoch_end(self):  # after the epoch's validation: its mean, as logged
        seen["val/loss"].append((self.global_step, self.trainer.callback_metrics["val/loss"].item()))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)


def data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, 4, generator=g)
    return DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)


torch.manual_seed(0)
trainer = L.Trainer(max_epochs=2, accelerator="cpu", logger=SignalboxLogger(run="lightning-run"),
                    log_every_n_steps=1, enable_progress_bar=False, enable_model_summary=False,
                    default_root_dir=sys.argv[1],
                    callbacks=[ModelCheckpoint(dirpath=os.path.join(sys.argv[1], "ckpt"),
                                               save_last=True)])
trainer.fit(Model(), data(64, 1), data(16, 2))
print(json.dumps(seen))
