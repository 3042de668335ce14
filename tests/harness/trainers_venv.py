"""The trainers researchers run, from PyPI (CPU training; torch from PyPI carries CUDA's libraries
too, unused), in a virtualenv under the build directory: shared by tests/integration/
test_trainers.py and tests/bench/bench_trainers.py, which adds the peers' loggers to it."""
import os
import subprocess

import tensorboard_peer as peer

PACKAGES = ["torch==2.15.0", "lightning==2.6.6", "transformers==5.24.0", "accelerate==1.15.0",
            "keras==3.15.1", "tensorboardX==2.6.5", "numpy", "Pillow", "soundfile",
            "setuptools>=61", "wheel"]
# The loggers Signalbox's adapters are measured against, in the same training loops (Aim reads
# the installed packages with pkg_resources, which setuptools 81 dropped).
PEERS = ["wandb==0.31.0", "mlflow-skinny==3.17.2", "aim==3.29.1", "setuptools==80.10.2"]


def ensure(build_dir, peers=False):
    """The virtualenv's python, made on first use; with `peers`, the peers' loggers added."""
    python = peer.ensure_venv(build_dir, "venv-trainers", PACKAGES)
    marker = os.path.join(os.path.dirname(os.path.dirname(python)), ".peers-" + "-".join(PEERS))
    if peers and not os.path.exists(marker):
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
                       + PEERS, check=True)
        open(marker, "w").close()
    return python
