"""`embedstore context --at PATH:LINE` and `--code -`: code-at-cursor from the shell,
with the real default model, and the target model's tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.encoders.registry import bundled_source

runner = CliRunner()
TOOLS = '''"""Text tools."""


def normalize_title(text: str, width: int = 40) -> str:
    """Collapse spaces and cut the title to width."""
    return " ".join(text.split())[:width]


def unrelated(value: int) -> int:
    return value + 1
'''
MAIN = '''from tools import normalize_title


def page(raw: str) -> str:
    header = normalize_title(raw)
    return header
'''


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cursor") / "site"
    root.mkdir()
    (root / "tools.py").write_text(TOOLS)
    (root / "main.py").write_text(MAIN)
    store = root.parent / "store"
    done = runner.invoke(app, ["index", str(root), "--store", str(store)])
    assert done.exit_code == 0, done.stderr
    return root, store


def test_at_a_line_of_a_file_on_disk(indexed: tuple[Path, Path]) -> None:
    root, store = indexed
    done = runner.invoke(app, ["context", "--at", f"{root / 'main.py'}:5", "--store", str(store),
                               "--json"])
    assert done.exit_code == 0, done.stderr
    body = json.loads(done.stdout)
    assert "def normalize_title(text: str, width: int = 40) -> str:" in body["text"]
    assert [b["path"] for b in body["blocks"]] == ["tools.py"]  # main.py is the prompt's own
    assert 0 < body["tokens"] <= 2000


def test_code_from_stdin_with_a_tiktoken_budget(indexed: tuple[Path, Path]) -> None:
    _, store = indexed
    code = "from tools import normalize_title\n\n\ndef page(raw):\n    "
    done = runner.invoke(app, ["context", "--code", "-", "--path", "main.py", "--tokenizer",
                               "cl100k_base", "--max-tokens", "60", "--store", str(store),
                               "--json"], input=code)
    assert done.exit_code == 0, done.stderr
    body = json.loads(done.stdout)
    assert 0 < body["tokens"] <= 60
    assert "def normalize_title" in body["text"]


def test_a_hugging_face_tokenizer_folder_counts_the_budget(indexed: tuple[Path, Path]) -> None:
    _, store = indexed
    source = bundled_source("sentence-transformers/all-MiniLM-L6-v2")
    assert source is not None
    folder = Path(source[0])
    assert (folder / "tokenizer.json").is_file()
    code = "from tools import normalize_title\n\nx = "
    done = runner.invoke(app, ["context", "--code", "-", "--tokenizer", str(folder),
                               "--max-tokens", "50", "--store", str(store), "--json"],
                         input=code)
    assert done.exit_code == 0, done.stderr
    assert 0 < json.loads(done.stdout)["tokens"] <= 50


def test_errors_are_one_line(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root, store = indexed
    both = runner.invoke(app, ["context", "words", "--at", f"{root / 'main.py'}:2",
                               "--store", str(store)])
    assert both.exit_code == 2 and "exactly one of QUERY, --at or --code" in both.stderr
    bad_at = runner.invoke(app, ["context", "--at", "main.py", "--store", str(store)])
    assert bad_at.exit_code == 2 and "PATH:LINE" in bad_at.stderr
    missing = runner.invoke(app, ["context", "--at", f"{root / 'gone.py'}:1",
                                  "--store", str(store)])
    assert missing.exit_code == 1 and "cannot read" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    import tiktoken

    def offline(name: str) -> tiktoken.Encoding:
        raise ConnectionError("no network")

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    from embedstore.retrieval.tokenizers import load_tokenizer

    load_tokenizer.cache_clear()
    unavailable = runner.invoke(app, ["context", "--code", "-", "--tokenizer", "o200k_base",
                                      "--store", str(store)], input="x = 1\n")
    assert unavailable.exit_code == 1
    assert "not available offline" in unavailable.stderr
    assert len(unavailable.stderr.strip().splitlines()) == 1
    unknown = runner.invoke(app, ["context", "--code", "-", "--tokenizer", "gpt-17",
                                  "--store", str(store)], input="x = 1\n")
    assert unknown.exit_code == 1 and "unknown tokenizer 'gpt-17'" in unknown.stderr


def test_a_prompt_format_prints_the_models_whole_prompt(indexed: tuple[Path, Path]) -> None:
    root, store = indexed
    done = runner.invoke(app, ["context", "--at", f"{root / 'main.py'}:5", "--store", str(store),
                               "--format", "starcoder2"])
    assert done.exit_code == 0, done.stderr
    assert done.stdout.startswith("<repo_name>site<file_sep>tools.py\n")
    assert "def normalize_title(text: str, width: int = 40) -> str:" in done.stdout
    # Nothing after <fim_middle>: the model continues right there.
    assert done.stdout.endswith(
        "<file_sep>main.py\n<fim_prefix>from tools import normalize_title\n\n\n"
        "def page(raw: str) -> str:\n<fim_suffix>    header = normalize_title(raw)\n"
        "    return header\n<fim_middle>"
    )


def test_a_column_puts_the_cursor_mid_line(indexed: tuple[Path, Path]) -> None:
    root, store = indexed
    # Line 5 is `    header = normalize_title(raw)`: column 14 is just before the name.
    done = runner.invoke(app, ["context", "--at", f"{root / 'main.py'}:5:14", "--store",
                               str(store), "--format", "starcoder2"])
    assert done.exit_code == 0, done.stderr
    assert "def normalize_title(text: str, width: int = 40) -> str:" in done.stdout
    assert done.stdout.endswith(
        "<fim_prefix>from tools import normalize_title\n\n\ndef page(raw: str) -> str:\n"
        "    header = <fim_suffix>normalize_title(raw)\n    return header\n<fim_middle>"
    )


def test_llama_infill_prints_the_body_for_llama_cpp(indexed: tuple[Path, Path]) -> None:
    root, store = indexed
    done = runner.invoke(app, ["context", "--at", f"{root / 'main.py'}:5", "--store", str(store),
                               "--format", "llama-infill"])
    assert done.exit_code == 0, done.stderr
    body = json.loads(done.stdout)
    assert set(body) == {"input_prefix", "input_suffix", "input_extra"}
    assert body["input_suffix"].startswith("    header = normalize_title(raw)")
    assert [e["filename"] for e in body["input_extra"]] == ["tools.py"]


def test_a_prompt_format_for_a_question_in_words_is_a_usage_error(
    indexed: tuple[Path, Path],
) -> None:
    _, store = indexed
    done = runner.invoke(app, ["context", "normalize titles", "--store", str(store),
                               "--format", "qwen"])
    assert done.exit_code == 2
    assert "use it with --at or --code" in done.stderr
