"""Parallel Loop Transformer (PLT): one shared block stack looped R times.

docs/plt.md is the specification. Modules, by job:

- ``config``: :class:`~embedstore.encoders.plt.config.PLTConfig`, saved as config.json
- ``rope``, ``positions``: position encodings (RoPE with NTK/YaRN, ALiBi, absolute)
- ``layers``, ``masks``, ``attention``, ``offset``: the pieces of one loop
- ``model``: :class:`~embedstore.encoders.plt.model.PLTModel`, the full-sequence forward
- ``cache``: the shared KV cache and the token-by-token path that proves it
- ``embedder``, ``folder``, ``encoder``, ``family``: the model as an embedstore encoder
- ``data``, ``teacher``, ``losses``, ``checkpoint``, ``train``: distillation training
- ``diagnostics``: per-loop offset cost, step size, gate, effective rank, cache bytes

This ``__init__`` imports nothing, so that the registry can import ``family``
without loading torch model code until a ``plt:`` spec is used.
"""
