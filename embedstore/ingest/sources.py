"""Walk a folder and yield the files worth indexing, with their text and hash.

What is left out, and why:

* in a git work tree (a root with its own ``.git``), what ``git ls-files
  --cached --others --exclude-standard`` leaves out: git itself applies its
  ignore rules (tracked files stay even when a pattern matches them), then
  ``.embedstoreignore`` files exclude more; without git, or when it fails, the
  folder is walked instead;
* in a walk, paths matched by ``.gitignore`` and ``.embedstoreignore`` files at
  any level (git's semantics: a nested file governs its own subtree, the
  deepest match wins, the last matching line of a file wins) and by the root's
  ``.git/info/exclude``; ignore files above the root are not read;
* version-control folders, pruned without being listed or counted;
* vendored folders, third-party code copied in (``vendor``, ``_vendor``,
  ``third_party``, ``node_modules``, ``.venv``...: the folder patterns of GitHub
  Linguist's ``vendor.yml``, plus environments), unless ``include_vendored``;
* build outputs (``build``, ``dist``, ``target``, ``_build``), only where a build
  would have put them: in a git work tree, a folder of that name that git tracks
  no file in (a tracked ``build/`` is source, as pip's ``operations/build/``);
  without git, one next to a project file (``pyproject.toml``, ``package.json``,
  ``Cargo.toml``, ``go.mod``...). Elsewhere such a folder is ordinary code;
* tool caches and editor state (``__pycache__``, ``.mypy_cache``, ``.idea``...);
* binaries, known by extension without reading them, or by a NUL byte near
  the start, or by not decoding as UTF-8; documents (PDF, Word, PowerPoint, HTML,
  notebooks) are read by their reader (``embedstore.chunking.readers``) instead, and
  one it cannot read (encrypted, damaged) is skipped for that reason and named;
* files larger than ``max_bytes`` (documents: ``DOCUMENT_SIZE_FACTOR`` times it),
  known from ``stat`` before reading;
* minified, generated and lock files, which add noise and no meaning;
* symlinks to folders (never followed, so a link cycle cannot loop the walk)
  and symlinks to files outside the root;
* files and folders whose names are not valid UTF-8: Python hands them over
  with surrogate escapes, which neither SQLite nor a tokenizer accepts.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar, get_args

from pathspec import GitIgnoreSpec

from embedstore.errors import UserInputError
from embedstore.ingest import git
from embedstore.languages import detect_language

if TYPE_CHECKING:
    from embedstore.chunking.readers import Rendered

DEFAULT_MAX_BYTES = 1 << 20
# A document may be this many times ``max_bytes``: a PDF of a few hundred pages is tens of
# MiB, most of it images and fonts that never reach the index.
DOCUMENT_SIZE_FACTOR = 64

SkipReason = Literal[
    "ignored",
    "vendored",
    "output",
    "cache",
    "binary",
    "too_large",
    "minified",
    "generated",
    "symlink",
    "unreadable",
    "undecodable_name",
    "encrypted",
    "damaged",
]
SKIP_REASONS: tuple[SkipReason, ...] = get_args(SkipReason)
Reason = TypeVar("Reason", bound=str)  # a SkipReason, or its name in a report

# Later files override earlier ones: .embedstoreignore can re-include (``!``)
# what .gitignore excludes in the same folder.
IGNORE_FILE_NAMES = (".gitignore", ".embedstoreignore")

# Repository metadata, not content: skipped without counting as a skip.
_VCS_DIR_NAMES = frozenset({".git", ".hg", ".svn", ".bzr"})

# Third-party code: the folder names among GitHub Linguist's vendor.yml patterns
# (github-linguist/linguist, lib/linguist/vendor.yml: node_modules/, bower_components/,
# third[-_]?party/, 3rd[-_]?party/, vendors?/ (which matches _vendor/ too), extern(al)?/,
# Godeps/_workspace/), and installed environments.
_VENDORED_DIR_NAMES = frozenset(
    {
        "node_modules",
        "bower_components",
        "jspm_packages",
        "vendor",
        "vendors",
        "_vendor",
        "third_party",
        "third-party",
        "thirdparty",
        "3rd_party",
        "3rd-party",
        "3rdparty",
        "extern",
        "external",
        ".venv",
        "venv",
        "site-packages",
    }
)
# Vendored only below the folder before them (as path endings, "/" first).
_VENDORED_DIR_PATHS = ("/Godeps/_workspace",)

# What a build writes, where it writes it (see the module's docstring).
_OUTPUT_DIR_NAMES = frozenset({"build", "dist", "target", "_build"})
# Files that make their folder a project's root, where its build outputs go.
PROJECT_FILE_NAMES = frozenset(
    {
        "pyproject.toml", "setup.py", "setup.cfg", "package.json", "deno.json", "Cargo.toml",
        "go.mod", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle",
        "settings.gradle.kts", "build.sbt", "CMakeLists.txt", "meson.build", "Makefile",
        "composer.json", "Gemfile", "mix.exs", "stack.yaml", "dune-project",
    }
)  # fmt: skip

# Tool caches and editor state: never source.
_CACHE_DIR_NAMES = frozenset(
    {
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        ".idea",
        ".vscode",
        ".gradle",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".parcel-cache",
        ".terraform",
        ".cache",
    }
)
_CACHE_DIR_SUFFIXES = (".egg-info",)
# The pruned folders a summary names: those a rule, not the user, chose.
NAMED_SKIPS: frozenset[SkipReason] = frozenset({"vendored", "output"})

_BINARY_EXTENSIONS = frozenset(
    {
        # images and media
        ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff",
        ".psd", ".svg", ".mp3", ".mp4", ".wav", ".ogg", ".flac", ".avi", ".mov",
        ".mkv", ".webm",
        # fonts and documents
        ".ttf", ".otf", ".woff", ".woff2", ".eot", ".doc", ".xls", ".xlsx", ".ppt",
        # archives, packages and compiled code
        ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar",
        ".war", ".whl", ".egg", ".exe", ".dll", ".so", ".dylib", ".a", ".o", ".obj",
        ".lib", ".bin", ".class", ".pyc", ".pyo", ".pyd", ".wasm", ".iso", ".dmg",
        # data files and model weights
        ".db", ".sqlite", ".sqlite3", ".parquet", ".npy", ".npz", ".pkl", ".pickle",
        ".pt", ".pth", ".ckpt", ".safetensors", ".onnx", ".h5", ".faiss",
    }
)  # fmt: skip

# Lock files are machine-written, so they count as generated.
_LOCK_FILE_NAMES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "pipfile.lock",
        "uv.lock",
        "pdm.lock",
        "cargo.lock",
        "composer.lock",
        "gemfile.lock",
        "go.sum",
    }
)
_GENERATED_NAME_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", ".pb.go", ".pb.gw.go")
# Case-sensitive on purpose: these are the conventional spellings, and prose
# such as "do not edit this by hand" in a README must not match.
_GENERATED_MARKERS = ("@generated", "DO NOT EDIT", "Code generated")
_GENERATED_MARKER_LINES = 5

_MINIFIED_NAME_SUFFIXES = (".min.js", ".min.mjs", ".min.css", ".js.map", ".css.map")
_MINIFIABLE_LANGUAGES = frozenset({"javascript", "css"})
_MINIFIED_MEAN_LINE_LENGTH = 300

# Git's own heuristic: a NUL byte in the first 8 KiB means binary.
_BINARY_SNIFF_BYTES = 8192

# A file's (size in bytes, modification time in ns), as stat gives them.
Stamp = tuple[int, int]


@dataclass(frozen=True)
class SourceFile:
    """One file kept for indexing."""

    path: Path  # absolute
    rel_path: str  # POSIX, relative to the root
    language: str
    text: str  # decoded, BOM stripped, line endings normalised to "\n"
    sha256: str  # hex digest of the raw bytes on disk
    size: int  # bytes on disk
    # A document (PDF, HTML...) as its reader laid it out: ``text`` is its text, and each
    # line knows its section and location. None for every other file.
    document: Rendered | None = None


@dataclass
class ScanStats:
    """How many files were kept, and how many paths were skipped for each reason.

    A pruned folder (vendored, ignored, unreadable or a symlink) counts as one
    skip: its contents are never listed, which is the point of pruning.
    """

    kept: int = 0
    skipped: dict[SkipReason, int] = field(default_factory=lambda: dict.fromkeys(SKIP_REASONS, 0))
    # The stamp of every listed file that could be stat'ed, kept or skipped, taken
    # before reading it: what embedstore.ingest.freshness compares the folder with later.
    stamps: dict[str, Stamp] = field(default_factory=dict)
    # Kept files passed over unread because their stamp equals a trusted one.
    unchanged: list[str] = field(default_factory=list)
    # When the scan began (ns since the epoch): stamps are trustworthy relative to it.
    started_ns: int = 0
    # Folders pruned by a rule the user may not expect (NAMED_SKIPS): {"pip/_vendor/": reason}.
    pruned: dict[str, SkipReason] = field(default_factory=dict)
    # Documents their reader could not read: {"a.pdf": "encrypted"}.
    unreadable_documents: dict[str, str] = field(default_factory=dict)
    # Pages of the documents read that had no text (scanned), so no unit.
    pages_without_text: int = 0

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def record_skip(self, reason: SkipReason) -> None:
        self.skipped[reason] += 1

    def record_pruned(self, rel_dir: str, reason: SkipReason) -> None:
        """A folder left out whole: counted once, and named if a rule (not the user) chose."""
        self.record_skip(reason)
        if reason in NAMED_SKIPS:
            self.pruned[rel_dir] = reason

    def summary(self) -> str:
        """E.g. ``kept 1,234 files, skipped 12 (binary 10, too large 2)``."""
        return f"kept {self.kept:,} files, {describe_skips(self.skipped)}"


def describe_skips(skipped: Mapping[Reason, int]) -> str:
    """E.g. ``skipped 12 (binary 10, too large 2)``, or ``skipped 0``."""
    text = f"skipped {sum(skipped.values()):,}"
    reasons = ", ".join(
        f"{reason.replace('_', ' ')} {count:,}" for reason, count in skipped.items() if count
    )
    return f"{text} ({reasons})" if reasons else text


def walk_sources(
    root: str | Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stats: ScanStats | None = None,
    trusted: Mapping[str, Stamp] | None = None,
    include_vendored: bool = False,
) -> Iterator[SourceFile]:
    """Yield the indexable files under ``root``, sorted by ``rel_path``.

    A ``root`` that is a file yields that one file (``rel_path`` is its name)
    if it passes the same file filters; ignore files do not apply to it.
    Pass ``stats`` to learn what was kept and skipped.

    ``trusted``: stamps of kept files that an earlier scan read, recorded long
    enough before it that an edit since must have moved them (see
    ``embedstore.ingest.freshness.trusted_stamps``). A file whose stamp still equals its
    trusted one is not read or yielded; it is listed in ``stats.unchanged``.
    This is what keeps re-indexing a large tree after one edit to a stat per file.

    ``include_vendored``: walk vendored folders too.

    Raises ``UserInputError`` when ``root`` does not exist or is neither a
    folder nor a regular file, at the call rather than at the first ``next``.
    """
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be a positive number of bytes, got {max_bytes}")
    resolved = check_root(root)
    scan_stats = ScanStats() if stats is None else stats
    scan_stats.started_ns = time.time_ns()
    return _Scanner(resolved, max_bytes, scan_stats, trusted or {}, include_vendored).tree()


def check_root(root: str | Path) -> Path:
    """``root`` resolved, if it is a folder or a file to index; else ``UserInputError``."""
    path = Path(root)
    if not path.exists():
        raise UserInputError(f"{path} does not exist: give the path of a folder or file to index")
    resolved = path.resolve()
    if not (resolved.is_file() or resolved.is_dir()):
        raise UserInputError(f"{path} is neither a folder nor a regular file: nothing to index")
    return resolved


def file_stamps(root: str | Path, *, include_vendored: bool = False) -> dict[str, Stamp]:
    """The stamp of every file ``walk_sources`` would look at, from listing and stat alone.

    Nothing is read, so a file that a scan would skip for its content (binary,
    generated...) has a stamp here as in ``ScanStats.stamps``: the two compare
    equal while the folder is unchanged. A missing root has no files.
    """
    resolved = Path(root).resolve()
    if not resolved.exists():
        return {}
    scanner = _Scanner(resolved, DEFAULT_MAX_BYTES, ScanStats(), include_vendored=include_vendored)
    stamps: dict[str, Stamp] = {}
    for path, rel_path in scanner.listing():
        if _skip_reason_from_name(path.name.lower()) is None:
            try:
                stamps[rel_path] = _stamp(path.stat())
            except OSError:
                continue  # gone since the listing, or unreadable: a scan would skip it too
    return stamps


@dataclass(frozen=True)
class _IgnoreRules:
    """The ignore specs in force in one folder, outermost first.

    Each layer holds the folder it came from (``rel_dir``, "" or ending in
    "/") because its patterns are anchored there.
    """

    layers: tuple[tuple[str, GitIgnoreSpec], ...] = ()

    def adding(self, rel_dir: str, pattern_files: Iterable[Path]) -> _IgnoreRules:
        lines = [line for path in pattern_files for line in _read_pattern_lines(path)]
        if not lines:
            return self
        return _IgnoreRules((*self.layers, (rel_dir, GitIgnoreSpec.from_lines(lines))))

    def is_ignored(self, rel_path: str, *, is_dir: bool) -> bool:
        # As in git, the deepest ignore file with a matching line decides, and
        # a matching "!" line re-includes (``include`` is False). The trailing
        # "/" tells pathspec the path is a folder, which "logs/" patterns need.
        suffix = "/" if is_dir else ""
        for rel_dir, spec in reversed(self.layers):
            verdict = spec.check_file(rel_path[len(rel_dir) :] + suffix).include
            if verdict is not None:
                return verdict
        return False


def _read_pattern_lines(path: Path) -> list[str]:
    # As in git, an ignore file that cannot be read contributes no patterns.
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


@dataclass(frozen=True)
class _Subfolder:
    """A folder the walk goes into next, with the ignore rules in force above it."""

    path: Path
    rel_dir: str  # ending in "/"
    rules: _IgnoreRules


@dataclass(frozen=True)
class _Scanner:
    root: Path  # resolved
    max_bytes: int
    stats: ScanStats
    trusted: Mapping[str, Stamp] = field(default_factory=dict)
    include_vendored: bool = False

    def tree(self) -> Iterator[SourceFile]:
        for path, rel_path in self.listing():
            if not self._still_trusted(path, rel_path):
                yield from self._keep(_load(path, rel_path, self.max_bytes, self.stats))

    def _still_trusted(self, path: Path, rel_path: str) -> bool:
        """True (and counted as kept, unchanged) when the file's stamp is its trusted one."""
        trusted = self.trusted.get(rel_path)
        if trusted is None:
            return False
        try:
            stamp = _stamp(path.stat())
        except OSError:
            return False  # _load says why
        if stamp != trusted:
            return False
        self.stats.stamps[rel_path] = stamp
        self.stats.unchanged.append(rel_path)
        self.stats.kept += 1
        return True

    def listing(self) -> Iterator[tuple[Path, str]]:
        """(path, rel_path) of each file worth a look, sorted by rel_path; nothing read.

        A root that is a file is listed alone: ignore files do not apply to it.
        """
        if self.root.is_file():
            yield self.root, self.root.name
            return
        listed = git.tracked_and_untracked_files(self.root)
        if listed is None:
            rules = _IgnoreRules().adding("", [self.root / ".git" / "info" / "exclude"])
            yield from self._walk(rules)
        else:
            yield from _GitListing(self, listed).filter()

    def _walk(self, rules: _IgnoreRules) -> Iterator[tuple[Path, str]]:
        """Depth-first from the root, with a stack of folder listings instead of
        recursion: a tree nested hundreds of folders deep must not exhaust Python's
        call stack."""
        stack = [self._folder(self.root, "", rules)]
        while stack:
            found = next(stack[-1], None)
            if found is None:
                stack.pop()
            elif isinstance(found, _Subfolder):
                stack.append(self._folder(found.path, found.rel_dir, found.rules))
            else:
                yield found

    def _folder(
        self, folder: Path, rel_dir: str, rules: _IgnoreRules
    ) -> Iterator[tuple[Path, str] | _Subfolder]:
        """The files of one folder, and the subfolders to walk, in walk order."""
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=_walk_order)
        except OSError:
            self.stats.record_skip("unreadable")
            return
        present = {entry.name for entry in entries}
        ignore_files = [folder / name for name in IGNORE_FILE_NAMES if name in present]
        rules = rules.adding(rel_dir, ignore_files)
        # Without git to say what is source, outputs are where a build puts them.
        project_root = not present.isdisjoint(PROJECT_FILE_NAMES)
        for entry in entries:
            rel_path = rel_dir + entry.name
            if entry.is_symlink():
                yield from self._symlink(entry, rel_path, rules)
            elif entry.is_dir(follow_symlinks=False):
                if self._enters(rel_path, rules, built_here=project_root):
                    yield _Subfolder(Path(entry.path), rel_path + "/", rules)
            elif rules.is_ignored(rel_path, is_dir=False):
                self.stats.record_skip("ignored")
            else:
                yield Path(entry.path), rel_path

    def _enters(self, rel_path: str, rules: _IgnoreRules, *, built_here: bool) -> bool:
        """Whether the walk goes into a subfolder; a pruned one is counted."""
        reason = self.prune_reason(rel_path, built_here=built_here)
        if reason == "vcs":
            return False
        if reason is None and rules.is_ignored(rel_path, is_dir=True):
            reason = "ignored"
        if reason is None:
            return True
        self.stats.record_pruned(rel_path + "/", reason)
        return False

    def prune_reason(
        self, rel_path: str, *, built_here: bool
    ) -> SkipReason | Literal["vcs"] | None:
        """Why the folder ``rel_path`` is left out whole, if it is ("vcs": silently, it is
        metadata); ``built_here``: whether an output folder here is a build's."""
        name = rel_path.rpartition("/")[2]
        reason = _folder_skip_reason(name, rel_path)
        if reason == "vendored" and self.include_vendored:
            return None
        if reason == "output" and not built_here:
            return None
        return reason

    def _symlink(
        self, entry: os.DirEntry[str], rel_path: str, rules: _IgnoreRules
    ) -> Iterator[tuple[Path, str]]:
        # Git stores a symlink as a file, so directory-only patterns never match it.
        if rules.is_ignored(rel_path, is_dir=False):
            self.stats.record_skip("ignored")
        elif self.link_stays_inside(Path(entry.path)):
            yield Path(entry.path), rel_path
        else:
            self.stats.record_skip("symlink")

    def link_stays_inside(self, link: Path) -> bool:
        # realpath does not raise on link loops; a looping link then resolves
        # to a path that is not a file and is skipped like a dangling one.
        target = Path(os.path.realpath(link))
        return target.is_relative_to(self.root) and target.is_file()

    def _keep(self, loaded: SourceFile | SkipReason) -> Iterator[SourceFile]:
        if isinstance(loaded, SourceFile):
            self.stats.kept += 1
            yield loaded
        else:
            self.stats.record_skip(loaded)


class _GitListing:
    """The rules git does not know, applied to its list: VCS, vendored, output and cache
    folders, ``.embedstoreignore`` files and symlinks that leave the root.

    A pruned folder counts once, as in a walk; what git leaves out is not counted.
    """

    def __init__(self, scanner: _Scanner, listed: Mapping[str, bool]) -> None:
        self._scanner = scanner
        self._listed = listed  # rel_path: whether git tracks it
        # Per folder ("" or ending in "/"): the rules in force inside it, None if pruned.
        self._rules: dict[str, _IgnoreRules | None] = {}
        # Every folder ("a/", "a/b/") that holds a tracked file at any depth.
        self._tracked_dirs: set[str] = set()
        for rel_path, tracked in listed.items():
            folder = _parent_dir(rel_path)
            while tracked and folder and folder not in self._tracked_dirs:
                self._tracked_dirs.add(folder)
                folder = _parent_dir(folder)

    def filter(self) -> Iterator[tuple[Path, str]]:
        stats = self._scanner.stats
        for rel_path in self._listed:
            rel_dir = rel_path.rpartition("/")[0]
            rules = self._folder_rules(f"{rel_dir}/" if rel_dir else "")
            if rules is None:
                continue
            path = self._scanner.root / rel_path
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue  # deleted but still tracked, or gone since git listed it
            if stat.S_ISDIR(mode):
                continue  # a submodule: another repository
            if rules.is_ignored(rel_path, is_dir=False):
                stats.record_skip("ignored")
            elif stat.S_ISLNK(mode) and not self._scanner.link_stays_inside(path):
                stats.record_skip("symlink")
            else:
                yield path, rel_path

    def _folder_rules(self, rel_dir: str) -> _IgnoreRules | None:
        # The folders not seen yet are entered outermost first, in a loop rather than
        # by recursion: a tree nested hundreds of folders deep must not exhaust the stack.
        unseen = []
        folder = rel_dir
        while folder not in self._rules:
            unseen.append(folder)
            if not folder:
                break
            folder = _parent_dir(folder)
        for folder in reversed(unseen):
            self._rules[folder] = self._enter(folder)
        return self._rules[rel_dir]

    def _enter(self, rel_dir: str) -> _IgnoreRules | None:
        """The rules inside ``rel_dir``, its parent's being known already."""
        rules = _IgnoreRules()
        if rel_dir:
            outer = self._rules[_parent_dir(rel_dir)]
            if outer is None:
                return None  # pruned above, and counted there
            # A folder git tracks files in is source, whatever its name says.
            reason = self._scanner.prune_reason(
                rel_dir[:-1], built_here=rel_dir not in self._tracked_dirs
            )
            if reason is None and outer.is_ignored(rel_dir[:-1], is_dir=True):
                reason = "ignored"
            if reason is not None:
                if reason != "vcs":
                    self._scanner.stats.record_pruned(rel_dir, reason)
                return None
            rules = outer
        return rules.adding(rel_dir, [self._scanner.root / rel_dir / ".embedstoreignore"])


def _parent_dir(rel_path: str) -> str:
    """The folder holding a path: ``"a/"`` of ``"a/b/"`` or of ``"a/b"``, ``""`` of ``"a/"``."""
    parent = rel_path.rstrip("/").rpartition("/")[0]
    return f"{parent}/" if parent else ""


def _folder_skip_reason(name: str, rel_path: str) -> SkipReason | Literal["vcs"] | None:
    """What a folder is by its name (and, for a few, its parent's): "output" only says it
    may be a build's (see _Scanner.prune_reason)."""
    if name in _VCS_DIR_NAMES:
        return "vcs"
    if not _decodable(name):
        return "undecodable_name"
    if name in _VENDORED_DIR_NAMES or f"/{rel_path}".endswith(_VENDORED_DIR_PATHS):
        return "vendored"
    if name in _OUTPUT_DIR_NAMES:
        return "output"
    if name in _CACHE_DIR_NAMES or name.endswith(_CACHE_DIR_SUFFIXES):
        return "cache"
    return None


def _walk_order(entry: os.DirEntry[str]) -> str:
    # Sorting a folder's names with "/" appended to subfolders makes the
    # depth-first walk emit rel_paths in plain string order: "a-b" < "a/x"
    # because "-" < "/", so the file "a-b" must come before the folder "a".
    return entry.name + "/" if entry.is_dir(follow_symlinks=False) else entry.name


def _load(path: Path, rel_path: str, max_bytes: int, stats: ScanStats) -> SourceFile | SkipReason:
    """Read one file, or say why it is not worth indexing (cheapest checks first)."""
    name = path.name.lower()
    name_reason = _skip_reason_from_name(name)
    if name_reason is not None:
        return name_reason
    try:
        file_stat = path.stat()
        # Before the read: a change after it moves the stamp, so it is never missed.
        stats.stamps[rel_path] = _stamp(file_stat)
        if not stat.S_ISREG(file_stat.st_mode):
            return "unreadable"  # FIFOs and devices would block or never end
        # Here, not at the top: the readers' package brings in the whole chunking stage,
        # which `list` and `info` (they import this module) never need.
        from embedstore.chunking.readers import is_document

        document = is_document(name)
        if document:
            max_bytes *= DOCUMENT_SIZE_FACTOR
        if file_stat.st_size > max_bytes:
            return "too_large"
        with path.open("rb") as handle:
            # One byte over the cap catches a file that grew since the stat.
            raw = handle.read(max_bytes + 1)
    except OSError:
        return "unreadable"
    if len(raw) > max_bytes:
        return "too_large"
    if document:
        return _load_document(path, rel_path, raw, stats)
    if b"\0" in raw[:_BINARY_SNIFF_BYTES]:
        return "binary"
    try:
        decoded = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return "binary"
    text = decoded.replace("\r\n", "\n").replace("\r", "\n")
    language = detect_language(name)
    content_reason = _skip_reason_from_text(text, language)
    if content_reason is not None:
        return content_reason
    return SourceFile(
        path=path,
        rel_path=rel_path,
        language=language,
        text=text,
        sha256=hashlib.sha256(raw).hexdigest(),
        size=len(raw),
    )


def _load_document(
    path: Path, rel_path: str, raw: bytes, stats: ScanStats
) -> SourceFile | SkipReason:
    """A document read by its reader; one it cannot read is named in ``stats``."""
    from embedstore.chunking.readers import DocumentReadError, read_document

    try:
        document = read_document(path.name, raw)
    except DocumentReadError as exc:
        reason: SkipReason = "encrypted" if exc.reason == "encrypted" else "damaged"
        stats.unreadable_documents[rel_path] = reason
        return reason
    stats.pages_without_text += document.pages_without_text
    return SourceFile(
        path=path,
        rel_path=rel_path,
        language=detect_language(path.name),
        text=document.text,
        sha256=hashlib.sha256(raw).hexdigest(),
        size=len(raw),
        document=document,
    )


def _stamp(file_stat: os.stat_result) -> Stamp:
    return file_stat.st_size, file_stat.st_mtime_ns


def _skip_reason_from_name(lowered_name: str) -> SkipReason | None:
    if not _decodable(lowered_name):
        return "undecodable_name"
    if Path(lowered_name).suffix in _BINARY_EXTENSIONS:
        return "binary"
    if lowered_name in _LOCK_FILE_NAMES or lowered_name.endswith(_GENERATED_NAME_SUFFIXES):
        return "generated"
    if lowered_name.endswith(_MINIFIED_NAME_SUFFIXES):
        return "minified"
    return None


def _decodable(name: str) -> bool:
    # A byte that is not UTF-8 arrives as a lone surrogate, which cannot be encoded back.
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _skip_reason_from_text(text: str, language: str) -> SkipReason | None:
    head = text.split("\n", _GENERATED_MARKER_LINES)[:_GENERATED_MARKER_LINES]
    if any(marker in line for line in head for marker in _GENERATED_MARKERS):
        return "generated"
    if language in _MINIFIABLE_LANGUAGES and _mean_line_length(text) > _MINIFIED_MEAN_LINE_LENGTH:
        return "minified"
    return None


def _mean_line_length(text: str) -> float:
    # A final newline ends the last line; it does not start an empty one.
    line_count = text.count("\n") + (0 if text.endswith("\n") else 1)
    return len(text) / line_count
