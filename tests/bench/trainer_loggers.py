"""One training loop with one logger, for bench_trainers.py: prints {"seconds", "cpu", "points"} as
JSON: the fit's wall time, and the CPU this process and its children (a logger's own service)
used meanwhile, ending each logger's run inside it (imports and start-up left out).

usage: trainer_loggers.py lightning|transformers LOGGER STEPS DIR
LOGGER: none, own (the framework's usual: Lightning's TensorBoardLogger, the Trainer's
report_to="tensorboard"), signalbox, wandb (offline), mlflow (a local file store), aim.
"""
import json
import os
import resource
import sys
import time

import torch

FRAMEWORK, LOGGER, STEPS, DIR = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
RUN = "bench-%s-%s-%d" % (FRAMEWORK, LOGGER, os.getpid())
# MLflow 3 keeps its local file store (what an MLflow user without a server logs to) behind this;
# its SQL store needs SQLAlchemy, which mlflow-skinny leaves out.
os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
os.environ.setdefault("MLFLOW_TRACKING_URI", "file:" + os.path.join(DIR, "mlruns"))
TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu():
    """CPU seconds of this process (all threads) and of its descendants, live or reaped."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(
                    (int(name), (int(fields[11]) + int(fields[12])) / TICK))
            except (OSError, IndexError, ValueError):
                pass
    total, todo = 0.0, [os.getpid()]
    while todo:
        for pid, cpu in children.get(todo.pop(), []):
            total += cpu
            todo.append(pid)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return total + usage.ru_utime + usage.ru_stime + reaped.ru_utime + reaped.ru_stime


def end_run():
    """Ends the logger's run as a script's end would, inside the measured time."""
    if LOGGER == "signalbox":
        import signalbox
        for run in list(signalbox._live):
            run.finish()
    elif LOGGER == "wandb":
        import wandb
        wandb.finish()
torch.manual_seed(0)
torch.set_num_threads(1)  # the same small model in every run: the loggers' cost stands out


def lightning():
    import lightning as L
    from torch.utils.data import DataLoader, TensorDataset

    class Model(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(16, 1)

        def training_step(self, batch, index):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.log("train/loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    if LOGGER == "none":
        logger = False
    elif LOGGER == "own":
        from lightning.pytorch.loggers import TensorBoardLogger
        logger = TensorBoardLogger(DIR)
    elif LOGGER == "signalbox":
        from signalbox.integrations.lightning import SignalboxLogger
        logger = SignalboxLogger(run=RUN)
    elif LOGGER == "wandb":
        from lightning.pytorch.loggers import WandbLogger
        logger = WandbLogger(name=RUN, save_dir=DIR, offline=True)
    elif LOGGER == "mlflow":
        from lightning.pytorch.loggers import MLFlowLogger
        logger = MLFlowLogger(run_name=RUN, tracking_uri="file:" + os.path.join(DIR, "mlruns"))
    elif LOGGER == "aim":
        from aim.pytorch_lightning import AimLogger
        logger = AimLogger(repo=DIR, experiment=RUN)
    x = torch.rand(STEPS * 8, 16)
    data = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)
    trainer = L.Trainer(max_steps=STEPS, accelerator="cpu", logger=logger, log_every_n_steps=1,
                        enable_progress_bar=False, enable_model_summary=False,
                        enable_checkpointing=False, default_root_dir=DIR)
    return lambda: trainer.fit(Model(), data), 2 * STEPS  # train/loss and epoch


def transformers():
    from transformers import (BertConfig, BertForSequenceClassification, Trainer,
                              TrainingArguments)

    class Data(torch.utils.data.Dataset):
        def __len__(self):
            return STEPS * 4

        def __getitem__(self, i):
            return {"input_ids": torch.arange(8) % 60 + 1, "attention_mask": torch.ones(8),
                    "labels": torch.tensor(i % 2)}

    model = BertForSequenceClassification(BertConfig(
        vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32, num_labels=2))
    callbacks, report = [], "none"
    if LOGGER == "own":
        report = "tensorboard"
    elif LOGGER == "signalbox":
        from signalbox.integrations.transformers import SignalboxCallback
        callbacks = [SignalboxCallback(run=RUN)]
    elif LOGGER in ("wandb", "mlflow"):
        report = LOGGER
    elif LOGGER == "aim":
        from aim.hugging_face import AimCallback
        callbacks = [AimCallback(repo=DIR, experiment=RUN)]
    args = TrainingArguments(output_dir=DIR, max_steps=STEPS, per_device_train_batch_size=4,
                             logging_steps=1, save_strategy="no", report_to=report,
                             use_cpu=True, disable_tqdm=True, run_name=RUN)
    trainer = Trainer(model=model, args=args, train_dataset=Data(), callbacks=callbacks)
    return trainer.train, 4 * STEPS  # loss, grad_norm, learning_rate, epoch


fit, points = {"lightning": lightning, "transformers": transformers}[FRAMEWORK]()
cpu, start = tree_cpu(), time.perf_counter()
fit()
end_run()
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "cpu": tree_cpu() - cpu, "points": points}))
