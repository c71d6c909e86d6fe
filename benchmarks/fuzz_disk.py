"""The LSP fuzzer's events under the server (benchmarks/fuzz_lsp.py): what an editor's user or another program does to
the files while the editor has them: a tilewise.toml broken mid-edit, a source renamed, made not UTF-8, or deleted
while open, an open file renamed. Each is undone some edits later, and the server is told as an editor tells it
(`didChangeWatchedFiles`, `didSave`, `didClose`/`didOpen`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from benchmarks.fuzz_client import GARBAGE_MANIFESTS, SOURCE_SUFFIXES

if TYPE_CHECKING:
    from benchmarks.fuzz_lsp import Doc, Fuzzer


def disk_event(fz: Fuzzer, doc: Doc) -> str:
    """Something done to the files under the server (`fz`'s workspace), undone some edits later; its kind."""
    op = doc.op
    on_disk = [
        p
        for p in sorted(op.rglob("*"))
        if p.suffix in SOURCE_SUFFIXES
        and p.is_file()
        and p not in fz.busy_paths
        and not any(d.path == p for d in fz.docs)
    ]
    choice = fz.rng.choice(["manifest", "rename", "delete-open", "rename-open", "not-utf8"])
    manifest = op / "tilewise.toml"
    if choice == "manifest" and manifest.is_file() and manifest not in fz.busy_paths:
        fz.busy_paths.add(manifest)
        good = manifest.read_bytes()
        bad = fz.rng.choice(GARBAGE_MANIFESTS)
        cut = good[: fz.rng.randrange(len(good) + 1)]
        manifest.write_bytes(cut if fz.rng.random() < 0.4 else cut + bad)
        fz.watched((manifest, types.FileChangeType.Changed))
        fz.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=manifest.as_uri()))
        )

        def fix_manifest() -> None:
            manifest.write_bytes(good)
            fz.busy_paths.discard(manifest)
            fz.watched((manifest, types.FileChangeType.Changed))

        fz.later(fix_manifest)
        return "manifest"
    if choice in ("rename", "not-utf8") and on_disk:
        target = fz.rng.choice(on_disk)
        fz.busy_paths.add(target)
        if choice == "not-utf8":
            good = target.read_bytes()
            target.write_bytes(good[: len(good) // 2] + bytes([0xFF, 0xFE, 0xC3, 0x28, 0x80]) + good[len(good) // 2 :])
            fz.watched((target, types.FileChangeType.Changed))

            def fix_bytes() -> None:
                target.write_bytes(good)
                fz.busy_paths.discard(target)
                fz.watched((target, types.FileChangeType.Changed))

            fz.later(fix_bytes)
            return "not-utf8"
        moved = target.with_name(target.stem + "_moved" + target.suffix)
        target.rename(moved)
        fz.busy_paths.add(moved)
        fz.watched((target, types.FileChangeType.Deleted), (moved, types.FileChangeType.Created))

        def move_back() -> None:
            moved.rename(target)
            fz.busy_paths -= {moved, target}
            fz.watched((moved, types.FileChangeType.Deleted), (target, types.FileChangeType.Created))

        fz.later(move_back)
        return "rename"
    if doc.busy:
        return fz.save(doc)
    doc.busy = True
    if choice == "rename-open":
        old_path, old_uri = doc.path, doc.uri
        new_path = doc.path.with_name(doc.path.stem + "_renamed" + doc.path.suffix)
        old_path.rename(new_path)
        fz.close(doc)
        doc.path, doc.uri, doc.version = new_path, new_path.as_uri(), 1
        fz.open(doc)

        def rename_back() -> None:
            new_path.rename(old_path)
            fz.close(doc)
            doc.path, doc.uri, doc.version, doc.busy = old_path, old_uri, 1, False
            fz.open(doc)

        fz.later(rename_back)
        return "rename-open"
    good = doc.path.read_bytes()
    doc.path.unlink()
    fz.watched((doc.path, types.FileChangeType.Deleted))

    def restore() -> None:
        doc.path.write_bytes(good)
        doc.busy = False
        fz.watched((doc.path, types.FileChangeType.Created))

    fz.later(restore)
    return "delete-open"
