"""Reading one page of the Ascend C API reference (the markdown sources of the official reference, as the
asc-devkit repository publishes them under docs/zh/api) into facts: whether the Atlas A2 (910B) supports it, the
header it names, its documented prototypes with the variant each belongs to, the data types it lists for the A2,
the namespace its examples call it through, and a struct's fields.

The pages mark chip-specific text with `<!-- npu="950,910b" id7 --> ... <!-- end id7 -->`; `for_a2` keeps only
what holds for the A2 (text outside any mark, or inside marks that all name 910b) before anything is read, so a
prototype documented for another chip alone never enters the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_MARK = re.compile(r'<!--\s*npu="([^"]*)"\s*(id\w+)\s*-->|<!--\s*end\s+(id\w+)\s*-->')
_FENCE = re.compile(r"^[ \t]*```[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)
_HEADER_DOC = re.compile(
    r"头文件(?:引用)?路径(?:为)?\s*[：:]?\s*`?\"?([\w./]+\.h)\"?`?"
    r"|需要包含\s*`?\"([\w./\\]+\.h)\"`?\s*头文件"
    r"|#include\s*[<\"]([\w./]+\.h)[>\"]"
    r"|包含头文件\s*`?([\w./\\]+\.h)`?"
)
_A2_LINE = re.compile(r"Atlas A2 训练系列产品\s*/\s*Atlas A2 推理系列产品[^\n|]*?(?:[：:]\s*(\S+)|\|\s*(\S+)\s*\|)")
_DTYPE_LIST = re.compile(r"([\w]+)?\s*支持的数据类型(?:为|包括)?\s*[：:]\s*([\w、/，, ]+)")
_SAMPLE = re.compile(r"GM_ADDR|__global__|\bProcess\s*\(|\bTPipe\s+\w+;|\.InitBuffer\(|\bCopyIn\s*\(")
_DTYPE_WORD = re.compile(r"\b(?:u?int(?:4b|8|16|32|64)_t|half|float|bfloat16_t|bool|double|complex32|complex64)\b")


@dataclass(slots=True)
class Block:
    """One prototype code block: its text and the bullet text that introduces it (the variant it documents)."""

    code: str
    variant: str


@dataclass(slots=True)
class Page:
    """What one reference page says, for the A2."""

    path: str
    title: str
    a2: bool | None  # True/False from the page's support list; None when it has none
    headers: list[str]
    blocks: list[Block]
    dtypes: dict[str, list[str]]
    example: str
    struct_blocks: list[str] = field(default_factory=list)


def for_a2(text: str) -> str:
    """`text` without the spans marked for chips other than the A2 (see the module doc)."""
    out: list[str] = []
    stack: list[tuple[str, bool]] = []
    pos = 0
    for m in _MARK.finditer(text):
        if all(keep for _, keep in stack):
            out.append(text[pos : m.start()])
        if m.group(1) is not None:
            chips = {c.strip() for c in m.group(1).split(",")}
            stack.append((m.group(2), "910b" in chips))
        else:
            ident = m.group(3)
            while stack:
                if stack.pop()[0] == ident:
                    break
        pos = m.end()
    if all(keep for _, keep in stack):
        out.append(text[pos:])
    return "".join(out)


def sections(text: str) -> dict[str, str]:
    """The page's `## ` sections by title (anchors dropped); the text before the first is under ""."""
    out: dict[str, str] = {}
    parts = re.split(r"^##\s+(.+?)\s*$", text, flags=re.M)
    out[""] = parts[0]
    for i in range(1, len(parts) - 1, 2):
        title = re.sub(r"<a name=[^>]*></a>", "", parts[i]).strip()
        out.setdefault(title, parts[i + 1])
    return out


def a2_support(support: str) -> bool | None:
    m = _A2_LINE.search(support)
    if m is None:
        return None
    word = (m.group(1) or m.group(2) or "").strip("，。,")
    return word.startswith("支持") or word.startswith("仅支持") or word == "√"


def _blocks(section: str) -> list[Block]:
    out = []
    for m in _FENCE.finditer(section):
        before = section[: m.start()]
        bullets = re.findall(r"^\s*[-*]\s+(.+?)\s*$", before, re.M)
        variant = bullets[-1] if bullets else ""
        code = "\n".join(line[_indent(m.group(1)) :] for line in m.group(1).splitlines())
        out.append(Block(code, re.sub(r"[*`]", "", variant)))
    return out


def _indent(code: str) -> int:
    lines = [line for line in code.splitlines() if line.strip()]
    return min((len(line) - len(line.lstrip()) for line in lines), default=0)


def _dtypes(text: str) -> dict[str, list[str]]:
    """Data types the page lists per template parameter (the A2's where the page tells chips apart)."""
    out: dict[str, list[str]] = {}
    for m in _DTYPE_LIST.finditer(text):
        owner = m.group(1) or "T"
        if re.fullmatch(r"[\u4e00-\u9fff]+", owner) or owner in ("Tensor",):
            owner = "T"
        words = list(dict.fromkeys(_DTYPE_WORD.findall(m.group(2))))
        if words and owner not in out:
            out[owner] = words
    # a table row `| T | ... 支持的数据类型为：half、float |` names its parameter in the first cell
    for row in re.finditer(r"^\|\s*(\w+)\s*\|([^\n]*支持的数据类型[^\n]*)$", text, re.M):
        words = list(dict.fromkeys(_DTYPE_WORD.findall(row.group(2))))
        if words:
            out.setdefault(row.group(1), words)
    return out


def read_page(path: str, raw: str) -> Page:
    """The facts of one page (see the module doc)."""
    text = for_a2(raw)
    secs = sections(text)
    title_m = re.search(r"^#\s+(.+?)\s*$", text, re.M)
    title = re.sub(r"<a name=[^>]*></a>", "", title_m.group(1)).strip() if title_m else path
    support = secs.get("产品支持情况")
    a2 = a2_support(support) if support is not None else None
    headers: list[str] = []
    described = "\n".join(v for k, v in secs.items() if "示例" not in k)  # an example's own includes are not the API's
    for m in _HEADER_DOC.finditer(described):
        h = next(g for g in m.groups() if g).replace("\\", "")
        if h not in headers:
            headers.append(h)
    proto = next((secs[k] for k in secs if k.startswith("函数原型") or k == "原型定义"), "")
    blocks = _blocks(proto)
    # the types a page defines outside its prototypes: every struct of a page without prototypes, and on any
    # page the enumerations its parameters take (Cast.md's RoundMode)
    described_blocks = [
        b.code for b in _blocks("\n".join(v for k, v in secs.items() if "示例" not in k and v != proto))
    ]
    struct_blocks = [
        code
        for code in described_blocks
        if (
            re.search(r"^\s*(?:template\s*<[^\n]*>\s*)?(?:struct|class)\s+\w+[^;\n]*\{", code, re.M)
            and not proto
            or re.search(r"^\s*enum(?:\s+class)?\s+\w+[^;\n]*\{", code, re.M)
        )
        and not _SAMPLE.search(code)  # a kernel class of a sample, not a documented type
    ]
    example = next((secs[k] for k in secs if k.startswith("调用示例") or k.endswith("示例")), "")
    dtype_text = "\n".join(secs.get(k, "") for k in secs if k.startswith("数据类型") or k.startswith("参数说明"))
    return Page(path, title, a2, headers, blocks, _dtypes(dtype_text), example, struct_blocks)


def declarations(code: str) -> list[tuple[str, str]]:
    """The declarations of a prototype block as (template head, declaration) pairs, comments dropped. A
    declaration ends where its brackets close at the end of a line and the next line does not continue it."""
    code = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
    lines = [re.sub(r"//.*$", "", line).strip() for line in code.splitlines()]
    out: list[tuple[str, str]] = []
    template, cur = "", ""
    for i, s in enumerate(lines):
        if not s and not cur:
            continue
        if not cur and (
            s.startswith("template") and re.match(r"template\s*<", s) or template.count("<") > template.count(">")
        ):
            template = f"{template} {s}".strip()
            head = _template_head(template)
            if head is None:
                continue  # the head goes on over the next line
            template, s = head, template[len(head) :].strip()
            if not s:
                continue
        cur = f"{cur} {s}".strip()
        depth = cur.count("(") - cur.count(")")
        nxt = next((line for line in lines[i + 1 :] if line), "")
        bare = re.sub(r"__\w+__\s*\([^)]*\)", "", cur)  # `template <typename T1> __aicore__ inline __inout_pipe__(S)`
        continues = (
            depth > 0
            or cur.endswith((",", "(", "::", "<"))
            or nxt.startswith(("->", ":", "const ", "noexcept"))
            or ("(" not in bare and bool(nxt) and not re.fullmatch(r"[A-Z][A-Z0-9_]*", bare.strip()))
        )
        if nxt == "const" or nxt.startswith("const;"):
            continues = True
        if not continues:
            out.append((template, cur.rstrip(";").strip()))
            template, cur = "", ""
    if cur:
        out.append((template, cur.rstrip(";").strip()))
    return out


def _template_head(text: str) -> str | None:
    """The `template <...>` that `text` starts with, its brackets matched, or None when they do not close."""
    depth = 0
    start = text.index("<")
    for i in range(start, len(text)):
        if text[i] == "<":
            depth += 1
        elif text[i] == ">":
            depth -= 1
            if depth == 0:
                return text[: i + 1]
    return None


def example_scope(example: str, name: str) -> str | None:
    """The namespace or class the page's example calls `name` through (`AscendC::Sin(` -> "AscendC"), if any."""
    m = re.search(rf"\b((?:[A-Za-z_]\w*::)+){re.escape(name)}\s*[<(]", example)
    return m.group(1)[:-2] if m else None


def struct_fields(code: str) -> list[tuple[str, str, list[str]]]:
    """Each struct or class a block defines: (name, its template head, the data members declared at its top
    level, as `type name` texts)."""
    out = []
    for m in re.finditer(r"(template\s*<[^\n{]*>\s*)?(?<!enum )\b(?:struct|class)\s+(\w+)[^;{]*\{", code):
        start, depth, i = m.end(), 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        body = code[start : i - 1]
        flat, d = [], 0
        for ch in body:  # the body's top level only: member functions' bodies and nested types are skipped
            if ch == "{":
                d += 1
            elif ch == "}":
                d -= 1
                flat.append(";")
                continue
            if d == 0:
                flat.append(ch)
        members = []
        for stmt in "".join(flat).split(";"):
            stmt = re.sub(r"//[^\n]*", "", stmt)
            stmt = re.sub(r"\s+", " ", stmt).strip()
            stmt = re.sub(r"^(?:public|private|protected)\s*:\s*", "", stmt)
            if not stmt or "(" in stmt or stmt.startswith(("using ", "typedef ", "friend ", "static_assert")):
                continue
            decl = re.split(r"\s*[={]", stmt, maxsplit=1)[0].strip()
            if re.fullmatch(r"(?:static\s+)?(?:constexpr\s+)?(?:const\s+)?[\w:<>, *&]+\s+\w+(\[\w*\])?", decl):
                members.append(decl)
        out.append((m.group(2), (m.group(1) or "").strip(), members))
    return out


def enum_defs(code: str) -> list[tuple[str, list[str]]]:
    """Each enumeration a block defines: (name, its enumerators)."""
    out = []
    for m in re.finditer(r"\benum(?:\s+class|\s+struct)?\s+(\w+)\s*(?::\s*[\w:]+\s*)?\{([^}]*)\}", code):
        body = re.sub(r"//[^\n]*|/\*.*?\*/", "", m.group(2), flags=re.S)
        names = [re.match(r"\s*(\w+)", e).group(1) for e in body.split(",") if re.match(r"\s*\w+", e)]  # type: ignore[union-attr]
        out.append((m.group(1), names))
    return out
