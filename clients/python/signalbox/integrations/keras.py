"""A Keras 3 callback that sends to Signalbox.

    from signalbox.integrations.keras import SignalboxCallback
    model.fit(x, y, epochs=10, callbacks=[SignalboxCallback(log_every_n_batches=50)])

The step is the number of batches trained so far (the optimizer's iterations, restored with a
saved model: a fit resumed from one goes on from its step, and SignalboxCallback(resume=
"rewind") hides what the run logged past it), so epochs and batches share one x axis:
each epoch's logs (loss, val_loss, ...) and "epoch" at the step it ended, and with
log_every_n_batches every n-th batch's logs as batch/loss and so on. fit()'s parameters
(epochs, steps) and the optimizer's settings are the run's config.
"""
import keras

import signalbox
from signalbox.integrations import numbers

__all__ = ["SignalboxCallback"]


class SignalboxCallback(keras.callbacks.Callback):
    """run: the run's name (default: $SIGNALBOX_RUN, else the script's name and the time);
    log_every_n_batches: also log every n-th batch (0: epochs only); other keyword arguments
    (config=, collector=, resume=...) go to signalbox.Run."""

    def __init__(self, run=None, log_every_n_batches=0, **run_options):
        super().__init__()
        self._name = run
        self._every = int(log_every_n_batches)
        self._options = run_options
        self._batches = 0
        self.run = None

    def on_train_begin(self, logs=None):
        if self.run is None:
            self.run = signalbox.Run(run=self._name, **self._options)
        config = {"fit": dict(self.params or {})}
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "get_config"):
            config["optimizer"] = optimizer.get_config()
        try:  # the steps before this fit: a model loaded from a checkpoint keeps them
            iterations = int(keras.ops.convert_to_numpy(optimizer.iterations))
            self._batches = max(self._batches, iterations)  # a fit again: a new optimizer's 0
        except Exception:  # noqa: BLE001 - not built yet, or no optimizer: a fresh start
            pass
        self.run.update_config(config)

    def on_train_batch_end(self, batch, logs=None):
        self._batches += 1
        if self._every and self._batches % self._every == 0:
            self.run.log({"batch/" + k: v for k, v in numbers(logs).items()}, self._batches)

    def on_epoch_end(self, epoch, logs=None):
        self.run.log(dict(numbers(logs), epoch=epoch + 1), self._batches)
