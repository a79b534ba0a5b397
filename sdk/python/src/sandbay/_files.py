"""Local files and directories for upload/download: directories travel as tar streams
(``PUT/GET …/files/archive``), written and read with the standard library's tarfile in stream mode."""
from __future__ import annotations

import os
import tarfile
import threading
from pathlib import Path, PurePosixPath
from typing import IO, Iterable, Iterator, List, Union

PathLike = Union[str, "os.PathLike[str]"]
CHUNK = 1 << 20


def file_chunks(f: IO[bytes]) -> Iterator[bytes]:
    while True:
        c = f.read(CHUNK)
        if not c:
            return
        yield c


def tar_stream(local_dir: PathLike) -> Iterator[bytes]:
    """A local directory as a tar stream, packed in a thread into a pipe while it is sent."""
    root = Path(local_dir)
    if not root.is_dir():
        raise NotADirectoryError(str(root))
    r, w = os.pipe()
    errors: List[BaseException] = []

    def pack() -> None:
        try:
            with os.fdopen(w, "wb") as out, tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                for path in sorted(root.rglob("*")):
                    if path.is_symlink() or not (path.is_file() or path.is_dir()):
                        continue
                    tar.add(str(path), arcname=path.relative_to(root).as_posix(), recursive=False)
        except BaseException as err:  # noqa: BLE001 - reported to the reader below
            errors.append(err)

    thread = threading.Thread(target=pack, daemon=True)
    thread.start()
    with os.fdopen(r, "rb") as pipe:
        yield from file_chunks(pipe)
    thread.join()
    if errors:
        raise errors[0]


def unpack(stream: IO[bytes], local_dir: PathLike) -> List[str]:
    """Unpacks a tar stream into ``local_dir``: files and directories only, nothing outside it."""
    root = Path(local_dir)
    root.mkdir(parents=True, exist_ok=True)
    written: List[str] = []
    with tarfile.open(fileobj=stream, mode="r|") as tar:
        for member in tar:
            name = PurePosixPath(member.name)
            parts = [p for p in name.parts if p != "."]
            if not parts:
                continue
            if name.is_absolute() or ".." in parts:
                raise ValueError(f"tar member outside the target directory: {member.name}")
            target = root.joinpath(*parts)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                target.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(member)
                assert src is not None
                with open(target, "wb") as out:
                    for c in file_chunks(src):
                        out.write(c)
                os.chmod(target, (member.mode & 0o777) or 0o644)
                written.append("/".join(parts))
    return written


def write_chunks(path: PathLike, chunks: Iterable[bytes]) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as out:
        for c in chunks:
            out.write(c)
