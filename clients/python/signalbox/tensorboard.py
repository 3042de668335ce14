"""A drop-in for the SummaryWriter of torch.utils.tensorboard and tensorboardX that sends to a
Signalbox collector instead of writing event files: existing code changes one import.

    from signalbox.tensorboard import SummaryWriter   # was: from torch.utils.tensorboard ...
    writer = SummaryWriter()
    writer.add_scalar("loss", loss, step)

The run is $SIGNALBOX_RUN (a run Signalbox launched), else the log_dir's last part, as
TensorBoard shows it for `tensorboard --logdir runs`: runs/exp1 logs to run "exp1". As there,
add_scalars logs each of its scalars to a run of its own, "exp1/MAIN_TAG/TAG", under MAIN_TAG
(tensorboardX's layout; torch's names it "exp1/MAIN_TAG_TAG").
Two differences, both said here once: add_hparams sets this run's config and logs its metrics
at global_step (0 by default), where torch makes a separate run named by the time; and what
Signalbox does not show (graphs, embeddings, meshes, PR curves, videos, custom layouts) is
accepted and left out, with a warning once per kind. purge_step=N continues the run of this
name (a script restarted from a checkpoint) and drops what it logged at step N or later, as
TensorBoard does: init(resume="rewind", resume_step=N, resume_inclusive=True).
"""
import datetime
import io
import numbers
import os
import socket
import sys

import signalbox

__all__ = ["SummaryWriter"]

_TENSORBOARD_BINS = 64  # for bins="tensorflow", "auto", "fd"...: equal buckets, as for others


class SummaryWriter:
    """torch.utils.tensorboard.SummaryWriter's calls, sent to a Signalbox collector. Keyword
    arguments beyond torch's (collector=, token=, config=...) go to signalbox.Run."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix="", logdir=None, write_to_disk=True, **run_options):
        log_dir = log_dir or logdir
        if not log_dir:  # torch's default: runs/CURRENT_DATETIME_HOSTNAME
            stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        if purge_step is not None:
            run_options.update(resume="rewind", resume_step=purge_step, resume_inclusive=True)
        launched = os.environ.get("SIGNALBOX_RUN")
        self._options = run_options
        self._run = signalbox.Run(run=None if launched else _run_name(self.log_dir),
                                  **run_options)
        self._scalars_runs = {}  # add_scalars' runs, by name
        self._warned = set()

    @property
    def run(self):
        """The signalbox.Run this writer logs to."""
        return self._run

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False, **display):  # tensorboardX's display_name...
        self._run.log({tag: _number(scalar_value)}, _step(global_step), walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        for tag, value in tag_scalar_dict.items():
            name = "%s/%s/%s" % (self._run.name, main_tag, tag)
            run = self._scalars_runs.get(name)
            if run is None:
                # One writer's runs: continued (rewound with it after a purge), and what they ran
                # is recorded on its own run.
                options = dict(self._options, record_code=False)
                options.setdefault("resume", True)
                options.pop("config", None)
                run = self._scalars_runs[name] = signalbox.Run(run=name, **options)
            run.log({main_tag: _number(value)}, _step(global_step), walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        count = int(bins) if isinstance(bins, numbers.Integral) else int(
            max_bins or _TENSORBOARD_BINS)
        self._sample(tag, signalbox.Histogram(values, bins=count), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits,
                          bucket_counts, global_step=None, walltime=None):
        # TensorBoard's buckets: bucket i covers (limit i-1, limit i], the first from `min`.
        lefts = [float(min)] + [float(limit) for limit in bucket_limits[:-1]]
        buckets = [(left, float(right), float(count))
                   for left, right, count in zip(lefts, bucket_limits, bucket_counts)]
        self._sample(tag, signalbox.Histogram(buckets=buckets), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._sample(tag, signalbox.Image(_layout(img_tensor, dataformats, "HWC")), global_step,
                     walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        self._sample(tag, signalbox.Image(_layout(img_tensor, dataformats, "NHWC")),
                     global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        figures = figure if isinstance(figure, list) else [figure]
        for i, each in enumerate(figures):
            out = io.BytesIO()
            each.savefig(out, format="png")
            if close:
                import matplotlib.pyplot as plt
                plt.close(each)
            self._sample(tag if len(figures) == 1 else "%s/%d" % (tag, i),
                         signalbox.Image(out.getvalue()), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        # Under the tag both torch and tensorboardX write, as a logdir read shows it.
        self._sample(tag + "/text_summary", signalbox.Text(text_string), global_step, walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        samples = signalbox._array(snd_tensor)
        if samples is not None and samples.ndim == 2 and samples.shape[0] == 1:
            samples = samples[0]  # torch's (1, L)
        self._sample(tag, signalbox.Audio(snd_tensor if samples is None else samples,
                                          rate=int(sample_rate)), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None, name=None):  # name: tensorboardX's run_name
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        self._run.update_config(hparam_dict)
        if metric_dict:
            self._run.log({k: _number(v) for k, v in metric_dict.items()}, _step(global_step))

    def flush(self):
        """Sending goes on in the background: nothing waits in this process to be flushed."""

    def close(self):
        for run in [self._run, *self._scalars_runs.values()]:
            run.finish()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        self.close()

    def __getattr__(self, name):
        if not name.startswith("add_"):
            raise AttributeError(name)

        def left_out(*args, **kwargs):
            if name not in self._warned:
                self._warned.add(name)
                print("signalbox: SummaryWriter.%s is not shown by Signalbox; left out (said "
                      "once)" % name, file=sys.stderr, flush=True)
        return left_out

    def _sample(self, tag, sample, global_step, walltime):
        self._run.log({tag: sample}, _step(global_step), walltime)


def _run_name(log_dir):
    """runs/exp1 -> exp1, as TensorBoard names a run found under the logdir it was given."""
    return os.path.basename(os.path.normpath(log_dir)) or "run"


def _step(global_step):
    """An event without a step is at step 0, as torch writes it."""
    return 0 if global_step is None else int(global_step)


def _number(value):
    item = getattr(value, "item", None)  # a tensor or numpy scalar
    return item() if callable(item) else value


def _layout(data, given, wanted):
    """`data` (a tensor or array) in the layout `wanted` (HWC or NHWC) from the one `given`
    (torch's dataformats: CHW, HWC, HW, NCHW, NHWC...)."""
    array = signalbox._array(data)
    if array is None:
        return data  # a PIL image or encoded bytes: Image takes them as they are
    given = given.upper()
    if len(given) != array.ndim or set(given) - set("NCHW"):
        raise ValueError("dataformats %r does not fit an array of shape %s"
                         % (given, tuple(array.shape)))
    if "C" not in given:
        array, given = array[..., None], given + "C"
    if wanted == "NHWC" and "N" not in given:
        array, given = array[None], "N" + given
    if wanted == "HWC" and "N" in given:  # one image of a batch: torch takes the first
        array, given = array[0], given.replace("N", "")
    return array.transpose([given.index(axis) for axis in wanted])
