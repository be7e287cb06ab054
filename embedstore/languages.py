"""Language of a source file, named from its file name alone.

The names are the ones the chunker and the ``language`` search filter use, so
they are stable identifiers (lower case, no spaces), not display names.
"""

from __future__ import annotations

from pathlib import Path

# Anything not listed is still indexed as plain text when it decodes as UTF-8.
FALLBACK_LANGUAGE = "text"

_LANGUAGE_BY_EXTENSION: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyx": "cython",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".groovy": "groovy",
    ".gradle": "groovy",
    ".rb": "ruby",
    ".php": "php",
    ".lua": "lua",
    ".r": "r",
    ".pl": "perl",
    ".pm": "perl",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".mli": "ocaml",
    ".clj": "clojure",
    ".jl": "julia",
    ".zig": "zig",
    ".vue": "vue",
    ".svelte": "svelte",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".fish": "fish",  # not Bash: its own syntax would parse as errors
    ".ps1": "powershell",
    ".bat": "batch",
    ".cmd": "batch",
    ".sql": "sql",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".scss": "scss",
    ".sass": "sass",
    ".less": "less",
    ".json": "json",
    ".jsonc": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".conf": "ini",
    ".xml": "xml",
    ".proto": "protobuf",
    ".graphql": "graphql",
    ".gql": "graphql",
    ".tf": "terraform",
    ".cmake": "cmake",
    ".mk": "make",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".tex": "latex",
    ".txt": "text",
}

# Files whose name, not extension, says what they are.
_LANGUAGE_BY_FILE_NAME: dict[str, str] = {
    "makefile": "make",
    "gnumakefile": "make",
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "cmakelists.txt": "cmake",
    "gemfile": "ruby",
    "rakefile": "ruby",
    "jenkinsfile": "groovy",
    ".bashrc": "shell",
    ".zshrc": "shell",
    ".profile": "shell",
}


def detect_language(path: str | Path) -> str:
    """Return the language name for ``path``, or ``"text"`` when it is not known.

    Matching ignores case, because ``README.MD`` and ``Main.JAVA`` exist in the
    wild and mean the same as their lower-case spellings.
    """
    name = Path(path).name.lower()
    by_name = _LANGUAGE_BY_FILE_NAME.get(name)
    if by_name is not None:
        return by_name
    # ``Dockerfile.dev`` and ``build.dockerfile`` are both Dockerfiles.
    if name.startswith("dockerfile.") or name.endswith(".dockerfile"):
        return "dockerfile"
    return _LANGUAGE_BY_EXTENSION.get(Path(name).suffix, FALLBACK_LANGUAGE)
