"""A Hugging Face Trainer callback that sends to Signalbox.

    from signalbox.integrations.transformers import SignalboxCallback
    trainer = Trainer(..., callbacks=[SignalboxCallback()])

Logs go to the run at the trainer's global step, named as Hugging Face's own integrations name
them: eval_loss as eval/loss, test_* as test/*, the rest under train/. The training arguments
(and the model's config, under "model") are the run's config; each checkpoint is noted.
"""
import os

from transformers import TrainerCallback

import signalbox
from signalbox.integrations import CHECKPOINTS_TAG, numbers

__all__ = ["SignalboxCallback"]


class SignalboxCallback(TrainerCallback):
    """run: the run's name (default: $SIGNALBOX_RUN, else the script's name and the time);
    other keyword arguments (config=, collector=, resume=...) go to signalbox.Run."""

    def __init__(self, run=None, **run_options):
        self._name = run
        self._options = run_options
        self.run = None

    def _start(self, args, state, model):
        if self.run is None and state.is_world_process_zero:
            self.run = signalbox.Run(run=self._name, **self._options)
            config = args.to_dict()
            model_config = getattr(model, "config", None)
            if hasattr(model_config, "to_dict"):
                config["model"] = model_config.to_dict()
            self.run.update_config(config)
        return self.run

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self._start(args, state, model)

    def on_log(self, args, state, control, logs=None, model=None, **kwargs):
        run = self._start(args, state, model)
        if run is not None:
            run.log({_renamed(name): value for name, value in numbers(logs).items()},
                    state.global_step)

    def on_save(self, args, state, control, **kwargs):
        run = self._start(args, state, kwargs.get("model"))
        if run is not None:
            path = os.path.join(args.output_dir, "checkpoint-%d" % state.global_step)
            run.log({CHECKPOINTS_TAG: signalbox.Text(path)}, state.global_step)


def _renamed(name):
    for prefix in ("eval", "test"):
        if name.startswith(prefix + "_"):
            return prefix + "/" + name[len(prefix) + 1:]
    return "train/" + name
