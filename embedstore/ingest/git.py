"""What git knows about a folder that is the root of a work tree: its files and HEAD.

Only a folder with its own ``.git`` counts: asked from a subfolder, git would
answer for the enclosing repository, whose ignore rules may exclude the very
folder being indexed. Every question returns None when git is missing, fails
or is too slow, and callers fall back to doing without it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# A huge repository lists in well under this; a hung git must not hang an index run.
GIT_TIMEOUT_SECONDS = 60.0


def tracked_and_untracked_files(root: Path) -> dict[str, bool] | None:
    """Paths relative to ``root`` that git would let one commit, sorted, each with whether
    git tracks it: tracked, or untracked and not ignored (``.gitignore``,
    ``.git/info/exclude``, the global excludes).

    Names come back as Python decodes them from the file system, so a name that is
    not UTF-8 keeps its surrogate escapes, as a folder walk would give it.
    """
    # -t tags each path: "? " untracked, any other letter a tracked file's state.
    listed = _git(root, "ls-files", "--cached", "--others", "--exclude-standard", "-t", "-z")
    if listed is None:
        return None
    # A conflicted file is listed once per stage: each path once.
    tagged = {os.fsdecode(entry[2:]): entry[:1] != b"?" for entry in listed.split(b"\0") if entry}
    return dict(sorted(tagged.items()))


def head_commit(root: Path) -> str | None:
    """The commit HEAD points at (40 hex digits), None without one (a new repository)."""
    out = _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if out is None:
        return None
    return out.decode().strip() or None


def _git(root: Path, *args: str) -> bytes | None:
    dot_git = root / ".git"
    if not dot_git.exists():
        return None
    # --git-dir pins the repository to this folder's own .git (a folder, or a file
    # pointing at a worktree's): a damaged one fails rather than sending git up the tree.
    command = ["git", f"--git-dir={dot_git}", f"--work-tree={root}", *args]
    try:
        done = subprocess.run(
            command, cwd=root, capture_output=True, timeout=GIT_TIMEOUT_SECONDS, check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):  # no git binary, a timeout...
        return None
    return done.stdout if done.returncode == 0 else None
