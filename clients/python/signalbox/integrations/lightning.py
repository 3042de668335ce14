"""A PyTorch Lightning logger that sends to Signalbox (Lightning 2: `lightning` or
`pytorch_lightning`).

    from signalbox.integrations.lightning import SignalboxLogger
    trainer = Trainer(logger=SignalboxLogger(run="resnet-lr3"))

Metrics and hyperparameters (save_hyperparameters(), or log_hyperparams) go to the run; on
several GPUs only rank zero logs; each checkpoint ModelCheckpoint saves is noted on the run.
A fit resumed from a checkpoint (trainer.fit(..., ckpt_path=...)) after a crash or a kill says
so, and its curves never double back: SignalboxLogger(run, resume="rewind") hides what the run
logged at the first step it logs again, and later.
"""
try:
    from lightning.pytorch.loggers.logger import Logger, rank_zero_experiment
    from lightning.pytorch.utilities import rank_zero_only
except ImportError:  # the older package name
    from pytorch_lightning.loggers.logger import Logger, rank_zero_experiment
    from pytorch_lightning.utilities import rank_zero_only

import sys

import signalbox
from signalbox.integrations import CHECKPOINTS_TAG, numbers

__all__ = ["SignalboxLogger"]


class SignalboxLogger(Logger):
    """run: the run's name (default: $SIGNALBOX_RUN, else the script's name and the time);
    other keyword arguments (config=, collector=, resume=...) go to signalbox.Run."""

    def __init__(self, run=None, **run_options):
        super().__init__()
        self._name = run
        self._options = run_options
        self._run = None
        self._checkpoints = set()

    @property
    def name(self):
        return "signalbox"

    @property
    def version(self):
        return self._run.name if self._run is not None else (self._name or "")

    @property
    @rank_zero_experiment
    def experiment(self):
        """The signalbox.Run, started on first use (on rank zero only)."""
        if self._run is None:
            self._run = signalbox.Run(run=self._name, **self._options)
        return self._run

    @rank_zero_only
    def log_hyperparams(self, params, *args, **kwargs):
        self.experiment.update_config(signalbox._plain_config(params))

    @rank_zero_only
    def log_metrics(self, metrics, step=None):
        self.experiment.log(numbers(metrics), step)

    @rank_zero_only
    def after_save_checkpoint(self, checkpoint_callback):
        saved = [getattr(checkpoint_callback, "last_model_path", "")]
        saved += list(getattr(checkpoint_callback, "best_k_models", {}) or {})
        new = sorted(str(path) for path in saved if path and str(path) not in self._checkpoints)
        if new:
            self._checkpoints.update(new)
            run = self.experiment
            run.log({CHECKPOINTS_TAG: signalbox.Text("\n".join(new))}, max(run.last_step, 0))

    @rank_zero_only
    def finalize(self, status):
        if status == "failed" and self._run is not None:
            # Lightning says "failed" for Ctrl-C and a signal too: those runs were stopped.
            stopped = signalbox._signalled is not None or isinstance(
                sys.exc_info()[1], KeyboardInterrupt)
            self._run.finish(signalbox.STATUS_ON_SIGNAL if stopped else "failed")
