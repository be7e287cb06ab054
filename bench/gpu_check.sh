#!/usr/bin/env bash
# GPU check (CUDA encoding + FAISS GPU IVF-PQ); needs a CUDA GPU and faiss-gpu. Args: see --help.
cd "$(dirname "$0")/.." && exec "${PYTHON:-python3}" bench/gpu_check.py "$@"
