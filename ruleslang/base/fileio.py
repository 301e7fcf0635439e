"""Writing files so that nothing the user saved is ever half-written."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder: fsync, then rename.

    A crash leaves either the old file or the new one, never a mixture; the temporary files an
    earlier, interrupted write left behind are removed once this one is in place. Something that is
    not a regular file (a device such as /dev/full, a pipe) is written straight to: renaming over
    it would replace the device with a file.
    """
    path = Path(path)
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    folder = path.parent if str(path.parent) else Path(".")
    # start-up time: tempfile (and shutil, random) only to write
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        # mkstemp makes the file private; give it the mode an ordinary new file would have
        # (or keep the mode of the file it replaces).
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _remove_stale_temporaries(folder, path.name)


def _remove_stale_temporaries(folder: Path, name: str) -> None:
    """Remove `.NAME.XXXXXXXX.tmp` files (mkstemp's names for `name`) an interrupted write left."""
    pattern = re.compile(re.escape(f".{name}.") + r"[a-z0-9_]{8}\.tmp")
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
            except OSError:
                pass  # gone already, or not ours to remove: the write itself succeeded


def is_file(path: str | Path) -> bool:
    """True when `path` names a regular file. False also where the system refuses to look (a name
    longer than it allows): a lookup then says "not found" at the place the name was written,
    instead of an unlocated system error."""
    try:
        return Path(path).is_file()
    except OSError:
        return False


def is_folder(path: str | Path) -> bool:
    """True when `path` names a folder; False also where the system refuses to look (as `is_file`)."""
    try:
        return Path(path).is_dir()
    except OSError:
        return False


def file_problem(path: str | Path) -> str | None:
    """Why a file cannot be written at `path`, or None when it can (checked before any work is done)."""
    target = Path(path)
    if target.is_dir():
        return "it is a folder, not a file"
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.exists():
        return f"there is no folder {folder}"
    return _folder_problem(folder)


def folder_problem(path: str | Path) -> str | None:
    """Why files cannot be written into the folder `path` (made when missing), or None when they can."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        return "it is a file, not a folder"
    # The folders that are missing get made; the nearest one that exists must take them.
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    return _folder_problem(existing)


def _folder_problem(folder: Path) -> str | None:
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} cannot be written to"
    return None
