"""A small PDF writer for tests: pages of Helvetica text and an outline (bookmarks).

The files it writes are real PDFs, read by the same pdfium the index uses; a page given no
lines has no text at all, as a scanned page has none. A line is its text, set in 11 point,
or (text, size) for another size (a heading's).
"""

from __future__ import annotations

from collections.abc import Sequence

# (level from 0, title, page index) of each outline entry, in reading order.
OutlineEntry = tuple[int, str, int]
Line = str | tuple[str, float]
BODY_SIZE = 11.0


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return f"({escaped})"


def _shown(line: Line) -> str:
    """One line's text operators, after a move to the next line at its size's leading."""
    text, size = (line, BODY_SIZE) if isinstance(line, str) else line
    return f"/F1 {size:g} Tf {size * 1.3:g} TL T* {_literal(text)} Tj"


def make_pdf(
    pages: Sequence[Sequence[Line]], outline: Sequence[OutlineEntry] = (), title: str = ""
) -> bytes:
    """A PDF whose page ``i`` shows the lines ``pages[i]``, top down."""
    objects: list[str] = []  # object i + 1

    def add(body: str) -> int:
        objects.append(body)
        return len(objects)

    catalog = add("")  # filled in last, when the outline's number is known
    tree = add("")
    font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    page_ids = []
    for lines in pages:
        shown = " ".join(_shown(line) for line in lines)
        stream = f"BT 72 760 Td {shown} ET" if lines else ""
        content = add(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
        page_ids.append(add(
            f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>"
        ))
    objects[tree - 1] = (f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] "
                         f"/Count {len(page_ids)} >>")
    extra = ""
    if outline:
        extra = f" /Outlines {_outline(outline, page_ids, add, objects)} 0 R"
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {tree} 0 R{extra} >>"
    info = add(f"<< /Title {_literal(title)} >>") if title else None
    return _serialise(objects, catalog, info)


def _outline(
    entries: Sequence[OutlineEntry], page_ids: list[int], add: object, objects: list[str]
) -> int:
    """The outline's objects; returns the number of its root."""
    assert callable(add)
    root = add("")
    ids = [add("") for _ in entries]
    parents: list[int] = []
    children: dict[int, list[int]] = {root: []}
    for index, (level, _, _) in enumerate(entries):
        del parents[level:]
        parent = parents[-1] if parents else root
        children.setdefault(parent, []).append(index)
        parents.append(ids[index])
        children.setdefault(ids[index], [])
    parent_of = {i: p for p, kids in children.items() for i in kids}
    for index, (_, title, page) in enumerate(entries):
        own = ids[index]
        siblings = children[parent_of[index]]
        at = siblings.index(index)
        links = [f"/Parent {parent_of[index]} 0 R"]
        if at > 0:
            links.append(f"/Prev {ids[siblings[at - 1]]} 0 R")
        if at + 1 < len(siblings):
            links.append(f"/Next {ids[siblings[at + 1]]} 0 R")
        kids = children[own]
        if kids:
            links.append(f"/First {ids[kids[0]]} 0 R /Last {ids[kids[-1]]} 0 R /Count {len(kids)}")
        dest = f"[{page_ids[page]} 0 R /XYZ 0 792 0]"
        objects[own - 1] = f"<< /Title {_literal(title)} /Dest {dest} {' '.join(links)} >>"
    top = children[root]
    objects[root - 1] = (f"<< /Type /Outlines /First {ids[top[0]]} 0 R "
                         f"/Last {ids[top[-1]]} 0 R /Count {len(top)} >>")
    return root


def _serialise(objects: list[str], catalog: int, info: int | None) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    start = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    trailer = f"/Size {len(objects) + 1} /Root {catalog} 0 R"
    if info is not None:
        trailer += f" /Info {info} 0 R"
    out += f"trailer\n<< {trailer} >>\nstartxref\n{start}\n%%EOF\n".encode()
    return bytes(out)
