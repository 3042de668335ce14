"""Adapters that let a trainer a researcher already runs log to Signalbox, each a thin layer
over signalbox.Run, importing its trainer only when used:

- signalbox.integrations.lightning.SignalboxLogger: a PyTorch Lightning logger;
- signalbox.integrations.transformers.SignalboxCallback: a Hugging Face Trainer callback;
- signalbox.integrations.keras.SignalboxCallback: a Keras 3 callback.

Each starts its run on the process that logs (rank zero), records the trainer's arguments as
the run's config, and notes checkpoints' paths on the run (a text at tag "checkpoints", at the
step they were saved). The run ends when the script does (finished, failed on an uncaught
exception, stopped on a signal), so evaluation after training still lands in it; Lightning's
failure of a fit ends it at once (as stopped when the fit was interrupted).
"""

CHECKPOINTS_TAG = "checkpoints"


def numbers(values):
    """The entries of `values` that are numbers (tensors and numpy scalars as Python numbers);
    strings and the like, which trainers mix into their logs, left out."""
    kept = {}
    for name, value in (values or {}).items():
        item = getattr(value, "item", None)
        if callable(item) and getattr(value, "ndim", 0) == 0:
            value = item()
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            kept[name] = value
    return kept
