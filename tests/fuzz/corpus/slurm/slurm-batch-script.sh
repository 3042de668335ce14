#!/bin/bash
#SBATCH -p gpu -t 1-02:00 --mem=16G --nodes=1-3 --ntasks-per-node=1
#SBATCH --gpus-per-node=h100:4 -J x
exec python3 train.py
