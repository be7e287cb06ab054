"""Prompt formats: code-at-cursor context laid out exactly as each model family documents it."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.errors import UserInputError
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.code_context import context_for_code
from embedstore.retrieval.context import ContextBlock, RagContext
from embedstore.retrieval.prompt_formats import (
    PROMPT_FORMATS,
    context_files,
    llama_infill_body,
    render_prompt,
)
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

# Two blocks of one file (not adjacent) and one of another, in rank order a, b, a.
CONTEXT = RagContext(
    query="",
    text="",
    tokens=0,
    max_tokens=100,
    blocks=[
        ContextBlock("pkg/a.py", "python", {3: "def f(x):", 4: "    return x"}),
        ContextBlock("pkg/b.py", "python", {1: "X = 1"}),
        ContextBlock("pkg/a.py", "python", {10: "def g(): ..."}),
    ],
)
PREFIX, SUFFIX = "import pkg\ny = pkg.", "\nprint(y)\n"
# DeepSeek-Coder's tokens are written with full-width bars and a lower one-eighth block.
BEGIN, HOLE, END = (f"<\uff5cfim\u2581{word}\uff5c>" for word in ("begin", "hole", "end"))
A_TEXT = "def f(x):\n    return x\n…\ndef g(): ...\n"


def render(fmt: str) -> str:
    return render_prompt(
        CONTEXT, fmt, code=PREFIX, code_after=SUFFIX, path="app/main.py", repo="demo",
    )


def test_blocks_of_one_file_become_one_entry_in_line_order_with_gaps_marked() -> None:
    files = context_files(CONTEXT)
    assert [(f.path, f.text) for f in files] == [("pkg/a.py", A_TEXT), ("pkg/b.py", "X = 1\n")]


def test_qwen_repository_level_fim_layout() -> None:
    assert render("qwen") == (
        "<|repo_name|>demo\n"
        f"<|file_sep|>pkg/a.py\n{A_TEXT}"
        "<|file_sep|>pkg/b.py\nX = 1\n"
        "<|file_sep|>app/main.py\n"
        f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>"
    )


def test_starcoder2_layout() -> None:
    assert render("starcoder2") == (
        "<repo_name>demo"
        f"<file_sep>pkg/a.py\n{A_TEXT}"
        "<file_sep>pkg/b.py\nX = 1\n"
        "<file_sep>app/main.py\n"
        f"<fim_prefix>{PREFIX}<fim_suffix>{SUFFIX}<fim_middle>"
    )


def test_deepseek_coder_layout_heads_files_with_path_comments_inside_the_fim_part() -> None:
    assert render("deepseek-coder") == (
        f"{BEGIN}# pkg/a.py\n{A_TEXT}# pkg/b.py\nX = 1\n# app/main.py\n"
        f"{PREFIX}{HOLE}{SUFFIX}{END}"
    )


def test_codellama_infill_layout() -> None:
    assert render("codellama") == (
        f"<PRE> # pkg/a.py\n{A_TEXT}# pkg/b.py\nX = 1\n# app/main.py\n{PREFIX} <SUF>{SUFFIX} <MID>"
    )


def test_path_comments_use_the_language_line_comment() -> None:
    go = RagContext("", "", 0, 100, [ContextBlock("util/util.go", "go", {1: "func F() {}"})])
    text = render_prompt(go, "deepseek-coder", code="F(", path="main.go")
    assert text.startswith(BEGIN + "// util/util.go\nfunc F() {}\n// main.go\nF(")


def test_without_a_path_or_a_repository_name_no_line_is_left_empty() -> None:
    def bare(fmt: str) -> str:
        return render_prompt(CONTEXT, fmt, code=PREFIX, code_after=SUFFIX)

    assert bare("qwen") == (f"<|file_sep|>pkg/a.py\n{A_TEXT}<|file_sep|>pkg/b.py\nX = 1\n"
                            f"<|file_sep|><|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}"
                            "<|fim_middle|>")
    assert bare("starcoder2").startswith("<file_sep>pkg/a.py\n")
    assert bare("starcoder2").endswith(f"X = 1\n<file_sep><fim_prefix>{PREFIX}<fim_suffix>"
                                       f"{SUFFIX}<fim_middle>")
    assert bare("deepseek-coder") == (f"{BEGIN}# pkg/a.py\n{A_TEXT}# pkg/b.py\nX = 1\n"
                                      f"{PREFIX}{HOLE}{SUFFIX}{END}")
    assert bare("codellama").endswith(f"X = 1\n{PREFIX} <SUF>{SUFFIX} <MID>")


def test_llama_infill_body_is_what_llama_cpp_infill_reads() -> None:
    assert llama_infill_body(CONTEXT, code=PREFIX, code_after=SUFFIX) == {
        "input_prefix": PREFIX,
        "input_suffix": SUFFIX,
        "input_extra": [
            {"filename": "pkg/a.py", "text": A_TEXT},
            {"filename": "pkg/b.py", "text": "X = 1\n"},
        ],
    }


def test_unknown_format_is_refused_with_the_known_ones_named() -> None:
    with pytest.raises(UserInputError, match="use one of: qwen, starcoder2"):
        render_prompt(CONTEXT, "gpt", code="")
    with pytest.raises(UserInputError, match="JSON body"):
        render_prompt(CONTEXT, "llama-infill", code="")
    assert "llama-infill" in PROMPT_FORMATS


def test_a_real_context_laid_out_as_qwen_holds_the_imported_definition(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "client.py").write_text(
        "def fetch(url: str) -> bytes:\n    return url.encode()\n"
    )
    (root / "app.py").write_text("x = 1\n")
    store = Store(tmp_path / "store")
    index_folder(store, root, IndexOptions(name="r", encoder=FAKE_SPEC))
    code = "from pkg.client import fetch\n\ndata = fetch("
    packed = context_for_code(store.open("r"), code, path="app.py", max_tokens=500)
    prompt = render_prompt(packed, "qwen", code=code, path="app.py", repo="r")
    assert "<|file_sep|>pkg/client.py\ndef fetch(url: str) -> bytes:" in prompt
    assert prompt.endswith(f"<|file_sep|>app.py\n<|fim_prefix|>{code}<|fim_suffix|><|fim_middle|>")
