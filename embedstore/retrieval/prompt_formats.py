"""Code-at-cursor context laid out the way a completion model family expects its prompt.

A fill-in-the-middle model reads other files of the repository, then the edited file's
text before the cursor (prefix) and after it (suffix), each behind its own special
tokens. The layouts follow each family's documentation:

- ``qwen``: Qwen2.5-Coder's repository-level FIM, ``<|repo_name|>`` and one
  ``<|file_sep|>`` per file, the edited file last with ``<|fim_prefix|>``,
  ``<|fim_suffix|>``, ``<|fim_middle|>``;
- ``starcoder2``: the same pattern with StarCoder2's ``<repo_name>``, ``<file_sep>`` and
  ``<fim_prefix>``/``<fim_suffix>``/``<fim_middle>`` (no newline after the repository name);
- ``deepseek-coder``: DeepSeek-Coder has no file tokens: each file is headed by its path in
  a line comment, all inside its ``fim▁begin``, ``fim▁hole`` and ``fim▁end`` tokens
  (the bars are full width, U+FF5C; the ▁ is U+2581);
- ``codellama``: Code Llama's infilling ``<PRE> {prefix} <SUF>{suffix} <MID>``, the other
  files in the prefix under path comments, as for DeepSeek-Coder;
- ``llama-infill``: the JSON body of llama.cpp's ``/infill`` (``input_prefix``,
  ``input_suffix``, ``input_extra``: one ``{"filename", "text"}`` per file), which llama.vim
  and llama.vscode send; the server adds the model's own tokens.

A context's blocks of one file become one file entry, its runs of lines in order with an
``…`` line between them. ``max_tokens`` counted the blocks' text; the few tokens of the
layout itself (a path line per file) come on top.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from embedstore.errors import UserInputError
from embedstore.languages import detect_language, line_comment
from embedstore.retrieval.context import ContextBlock

if TYPE_CHECKING:
    from embedstore.retrieval.context import RagContext


@dataclass(frozen=True)
class ContextFile:
    """The lines a context holds of one file, ready to lay out."""

    path: str
    language: str
    text: str  # ends with a newline


@dataclass(frozen=True)
class _Layout:
    """A text prompt: the repository line, one entry per file, then the edited file's FIM."""

    repo: str  # "{repo}"; left out when there is no repository name
    file: str  # "{path}", "{text}", "{comment}" (the file's line-comment marker)
    here: str  # the edited file's head: "{path}", "{comment}"
    unnamed: str  # its head when the caller gave no path: never an empty path line
    # "{files}" (the entries, where the family puts them), "{here}", "{prefix}", "{suffix}"
    fim: str


_LAYOUTS = {
    "qwen": _Layout(
        repo="<|repo_name|>{repo}\n",
        file="<|file_sep|>{path}\n{text}",
        here="<|file_sep|>{path}\n",
        unnamed="<|file_sep|>",
        fim="{files}{here}<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
    ),
    "starcoder2": _Layout(
        repo="<repo_name>{repo}",
        file="<file_sep>{path}\n{text}",
        here="<file_sep>{path}\n",
        unnamed="<file_sep>",
        fim="{files}{here}<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
    ),
    "deepseek-coder": _Layout(
        repo="",
        file="{comment} {path}\n{text}",
        here="{comment} {path}\n",
        unnamed="",
        fim=(
            "<\uff5cfim\u2581begin\uff5c>{files}{here}{prefix}"
            "<\uff5cfim\u2581hole\uff5c>{suffix}<\uff5cfim\u2581end\uff5c>"
        ),
    ),
    "codellama": _Layout(
        repo="",
        file="{comment} {path}\n{text}",
        here="{comment} {path}\n",
        unnamed="",
        fim="<PRE> {files}{here}{prefix} <SUF>{suffix} <MID>",
    ),
}
LLAMA_INFILL = "llama-infill"
PROMPT_FORMATS = (*_LAYOUTS, LLAMA_INFILL)


def check_format(name: str) -> str:
    """``name`` when it is a known prompt format, else a UserInputError naming them."""
    if name not in PROMPT_FORMATS:
        raise UserInputError(
            f"unknown prompt format {name!r}; use one of: {', '.join(PROMPT_FORMATS)}"
        )
    return name


def context_files(context: RagContext) -> list[ContextFile]:
    """One entry per file, in the order the context ranked them first."""
    by_path: dict[str, list[ContextBlock]] = {}
    for block in context.blocks:
        by_path.setdefault(block.path, []).append(block)
    files = []
    for path, blocks in by_path.items():
        merged = ContextBlock(path, blocks[0].language, {})
        for block in blocks:
            merged = merged.union(block)
        files.append(ContextFile(path, merged.language, merged.body + "\n"))
    return files


def render_prompt(
    context: RagContext,
    prompt_format: str,
    *,
    code: str,
    code_after: str = "",
    path: str = "",
    repo: str = "",
) -> str:
    """The whole prompt text for ``prompt_format`` (any but ``llama-infill``, a JSON body).

    ``path`` is the edited file's path in the repository (its language names the comment
    that heads files where the family has no file token), ``repo`` the repository's name.
    Without a path the edited file has no path line (a file token alone where the family
    has one), without a name no repository line.
    """
    if check_format(prompt_format) == LLAMA_INFILL:
        raise UserInputError(f"{LLAMA_INFILL} is a JSON body: use llama_infill_body")
    layout = _LAYOUTS[prompt_format]
    files = "".join(
        layout.file.format(path=f.path, text=f.text, comment=line_comment(f.language))
        for f in context_files(context)
    )
    here = layout.here.format(path=path, comment=line_comment(detect_language(path)))
    return (layout.repo.format(repo=repo) if repo else "") + layout.fim.format(
        files=files, here=here if path else layout.unnamed, prefix=code, suffix=code_after,
    )


def llama_infill_body(context: RagContext, *, code: str, code_after: str = "") -> dict[str, Any]:
    """The request body for llama.cpp's ``POST /infill``."""
    return {
        "input_prefix": code,
        "input_suffix": code_after,
        "input_extra": [{"filename": f.path, "text": f.text} for f in context_files(context)],
    }


def layout_prompt(
    context: RagContext,
    prompt_format: str,
    *,
    code: str,
    code_after: str = "",
    path: str = "",
    repo: str = "",
) -> str | dict[str, Any]:
    """What a face answers for ``prompt_format``: the prompt text, or llama.cpp's JSON body."""
    if check_format(prompt_format) == LLAMA_INFILL:
        return llama_infill_body(context, code=code, code_after=code_after)
    return render_prompt(
        context, prompt_format, code=code, code_after=code_after, path=path, repo=repo
    )
