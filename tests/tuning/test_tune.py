"""`embedstore tune` on a small real folder with the real default model (few steps)."""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from embedstore.encoders.registry import DEFAULT_ENCODER, load_encoder
from embedstore.tuning.pairs import held_out, mine_pairs, split_pairs
from embedstore.tuning.run import run_tune
from embedstore.tuning.train import TrainSettings

STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few real stdlib modules: enough pairs to train a batch, some files held out."""
    root = tmp_path_factory.mktemp("tune") / "lib"
    shutil.copytree(STDLIB / "email", root / "email",
                    ignore=shutil.ignore_patterns("__pycache__", "mime", "_*.py", "feedparser.py",
                                                  "utils.py", "message.py", "header.py"))
    return root


def test_held_out_files_never_reach_training(repo: Path) -> None:
    encoder = load_encoder()
    pairs = mine_pairs([repo], max_tokens=encoder.max_tokens, count_tokens=encoder.count_tokens)
    trained, held = split_pairs(pairs)
    assert trained and held
    assert not {p.path for p in trained} & {p.path for p in held}
    assert all(held_out(p.path) for p in held) and not any(held_out(p.path) for p in trained)
    # The positive is the definition as the indexer embeds it: path header, no docstring.
    assert all(p.positive.startswith(p.path.split("/", 1)[1] + "\n") for p in pairs)
    assert not any(p.query in p.positive for p in pairs)


def test_a_few_steps_save_a_model_that_loads_and_differs(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "tuned"
    settings = TrainSettings(out=out, steps=2, batch_size=4, learning_rate=1e-4, bf16=False)
    report = run_tune([repo], settings)
    assert report.base == DEFAULT_ENCODER  # a user's tune adds to the shipped code adapter
    assert report.steps == 2 and report.pairs_trained > 0 and report.files_held_out > 0
    assert {"mrr@10", "recall@10"} <= set(report.before) and report.after
    assert not (out / "checkpoints").exists()
    assert "held-out files" in (out / "README.md").read_text()
    tuned = load_encoder(str(out))
    base = load_encoder()
    text = ["def parse_header(line):\n    return line.split(':', 1)"]
    assert tuned.dim == base.dim and tuned.pooling == base.pooling
    assert not np.allclose(tuned.encode(text), base.encode(text), atol=1e-4)


def test_a_methods_docstring_pairs_with_the_method_not_the_class_around_it(
    tmp_path: Path,
) -> None:
    method = ('    def step_{0}(self, value):\n        """Advance gear number {0} by value."""\n'
              '        return value + {0} * self.size\n\n')
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "gears.py").write_text(
        'class Gearbox:\n    """Many gears."""\n\n' + "".join(method.format(i) for i in range(30)))
    words = lambda texts: [len(t.split()) for t in texts]  # noqa: E731
    # A budget the class exceeds: it is indexed as an outline around its methods' units.
    pairs = mine_pairs([tmp_path / "r"], max_tokens=60, count_tokens=words)
    seventh = next(p for p in pairs if "number 7 " in p.query)
    assert "def step_7(self, value):" in seventh.positive
    assert "def step_20" not in seventh.positive and "step_7" not in seventh.query
