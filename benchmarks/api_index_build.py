"""Build src/tilewise/analysis/data/api_index.json, the index of the documented AscendC API of the Atlas A2 (910B)
vector core, from the official Ascend C API reference.

Sources, each recorded on the entries it gives:
- the reference's markdown sources, docs/zh/api of the asc-devkit repository (fetch `mirror-cann/asc-devkit`);
  every entry names its page and the page's URL at the commit read;
- the repository's public include tree (include/adv_api/..., file paths only), for the header of a high-level API
  whose page names none: the file of the tree whose name is the API's (or that declares the name);
- benchmarks/api_index_extra.toml: facts taken by hand from reference pages outside that repository (the gert
  contexts of the host tiling API), each with its page's URL;
- the development partition of the corpus (optional, --corpus): how often each header path is included there.

    python benchmarks/api_index_build.py /work/.mirror/mirror-cann+asc-devkit/repo [--corpus /work/corpus]

The reference lists what each page supports per chip; only forms that hold for the A2 are kept (api_docs.for_a2).
Cube-side APIs (matrix, convolution, Matmul, cube groups) are kept as unit "cube", communication (HCCL) as
"hccl", and pages outside the tiling and kernel API (RTC, SuperKernel) as "other": benchmarks/api_coverage.py
counts the vector core's units apart from them.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from benchmarks.api_docs import Page, declarations, enum_defs, example_scope, read_page, struct_fields
from tilewise.analysis.api_index.signature import form_key, parse_declaration, squash

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "tilewise" / "analysis" / "data" / "api_index.json"
EXTRA = Path(__file__).resolve().parent / "api_index_extra.toml"
DOCS = "docs/zh/api"
URL = "https://github.com/{repo}/blob/{commit}/{path}"
REPO = "mirror-cann/asc-devkit"
# Parts of the reference outside the 910B's vector and cube cores: SIMT (not on the A2), the AI CPU, appendices.
SKIP = ("SIMT-API/", "AI-CPU-API/", "附录/")
LISTS = ("SIMD-API/基础API/基础API列表.md", "SIMD-API/高阶API/高阶API列表.md", "Utils-API/Utils-API列表.md")
CUBE = ("矩阵计算", "卷积计算", "Cube分组管理", "C-API/cube_", "Matmul", "Conv3D", "Fixpipe", "Mmad", "LoadData")
HCCL = ("HCCL", "Hccl")
OTHER = ("Utils-API/RTC/", "Utils-API/SuperKernel/", "Utils-API/log/")
# Host pages' headers and namespaces by folder, as the reference states them on its pages (for example "使用时需要
# 包含头文件register/tilingdata_base.h", "include/tiling/platform/platform_ascendc.h头文件") or its examples use.
HOST_FOLDERS = {
    "Utils-API/原型注册与管理/": ("register/op_def_registry.h", "ops"),
    "Utils-API/平台信息获取/": ("tiling/platform/platform_ascendc.h", "platform_ascendc"),
    "Utils-API/Tiling数据结构注册/": ("register/tilingdata_base.h", ""),
    "Utils-API/Tiling调测/": ("tiling/context/context_builder.h", "context_ascendc"),
    "Utils-API/Tiling模板编程/": ("tiling/template_argument.h", ""),
    "Utils-API/Tiling下沉/": ("register/device_op_impl_registry.h", ""),
    # the C API: "包含asc_simd.h文件来调用C API相应接口" (C-API/README.md); plain C functions, no namespace
    "SIMD-API/C-API/": ("c_api/asc_simd.h", ""),
}
HOST_TILING = "tiling/tiling_api.h"  # the high-level API's host umbrella (adv_api/tiling_api.h in the tree)
KERNEL_UMBRELLA = "kernel_operator.h"
# Folders that are not a class even though their name is an identifier.
NOT_CLASSES = {"C-API", "SIMD-API", "Utils-API", "log", "RTC", "SuperKernel"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def read_docs(repo: Path) -> dict[str, str]:
    """The reference's pages at the repository's HEAD, by path below docs/zh/api."""
    names = git(repo, "-c", "core.quotepath=off", "ls-tree", "-r", "--name-only", "HEAD", DOCS).splitlines()
    pages = {}
    for name in names:
        rel = name[len(DOCS) + 1 :]
        if name.endswith(".md") and not rel.startswith(SKIP):
            pages[rel] = git(repo, "show", f"HEAD:{name}")
    return pages


def tree_headers(repo: Path) -> list[str]:
    return [
        p[len("include/") :]
        for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "include/adv_api").splitlines()
        if p.endswith(".h")
    ]


def unit_of(rel: str, name: str, owner: str) -> str:
    if rel.startswith(OTHER):
        return "other"
    if any(h in rel or name.startswith(h) or owner.startswith(h) for h in HCCL):
        return "hccl"
    if any(c in rel for c in CUBE):
        return "cube"
    return "vector"


def side_of(rel: str, decl: str) -> str:
    """ "kernel" for device code, "host" for the tiling side (the reference's Utils pages but its standard library
    and debug interfaces, and the high-level APIs' tiling functions, whose prototypes carry no __aicore__)."""
    if rel.startswith("Utils-API/") and not rel.startswith(("Utils-API/CPP标准库/", "Utils-API/调测接口/")):
        return "host"
    if rel.startswith("SIMD-API/高阶API/") and "__aicore__" not in decl and not re.search(r"\bREGIST", decl):
        return (
            "host"
            if ("Tiling" in rel or re.search(r"Get\w*(TmpSize|TmpBufferFactorSize)|ge::Shape", decl))
            else "kernel"
        )
    if "Tiling侧接口" in rel or "Tiling类" in rel:
        return "host"
    return "kernel"


def owner_of(rel: str, name: str) -> str:
    """The class a member page documents a member of: its folder, when that is a class name (TPipe/InitBuffer.md),
    else the class its path names (Matmul-Tiling类/SetShape.md)."""
    parts = rel.split("/")
    folder = parts[-2] if len(parts) > 1 else ""
    m = re.match(r"^(\w+?)(?:-Kernel侧接口|-Tiling类|-Tiling侧接口)$", folder)
    if m:
        folder = {"Matmul": "Matmul", "HCCL": "Hccl"}.get(
            m.group(1), m.group(1) + ("Tiling" if "Tiling" in rel else "")
        )
    if not re.fullmatch(r"[A-Za-z_]\w*", folder, re.ASCII) or folder in NOT_CLASSES or folder == name:
        return ""
    if re.search(r"[a-z]_[a-z]", folder) or folder.islower():
        return ""  # a topic folder (layout_structure, reg_load), not a class
    return folder


def header_for(
    rel: str, page: Page, name: str, side: str, tree: list[str], declared: dict[str, str]
) -> tuple[str, str]:
    """(header, where it came from): the page's own, else the tree's file for a high-level API, else the folder's."""
    if page.headers:
        return page.headers[0], "page"
    if rel.startswith("SIMD-API/高阶API/"):
        if side == "host":
            return HOST_TILING, "umbrella"
        found = declared.get(name) or _by_file_name(name, tree)
        if found:
            return found, "tree"
    for prefix, (hdr, _) in HOST_FOLDERS.items():
        if rel.startswith(prefix):
            return hdr, "folder"
    return (KERNEL_UMBRELLA, "umbrella") if side == "kernel" else (HOST_TILING, "umbrella")


def _by_file_name(name: str, tree: list[str]) -> str | None:
    """The tree's kernel header named after `name` (Sin -> adv_api/math/sin.h; LogSoftMax -> logsoftmax.h)."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    for cand in (snake, name.lower()):
        for path in tree:
            if path.rsplit("/", 1)[-1] == f"{cand}.h":
                return path
    return None


def declaring_files(repo: Path, names: set[str]) -> dict[str, str]:
    """For each name, the first public kernel header of include/adv_api that declares a function of that name
    (file paths only: the text is searched, never kept)."""
    out: dict[str, str] = {}
    for name in sorted(names):
        try:
            hits = git(repo, "grep", "-l", "-E", rf"\b{name}\s*\(", "HEAD", "--", "include/adv_api").splitlines()
        except subprocess.CalledProcessError:
            continue
        files = [h.split(":", 1)[1][len("include/") :] for h in hits]
        files = [f for f in files if "tiling" not in f and "/internal/" not in f and not f.endswith("_utils.h")]
        files.sort(key=lambda f: (not f.endswith(f"/{name.lower()}.h"), "kernel_operator_" in f, f))
        if files:
            out[name] = files[0]
    return out


def namespace_for(rel: str, page: Page, name: str, owner: str, side: str) -> str:
    if rel.startswith("SIMD-API/C-API/"):
        return ""
    scope = example_scope(page.example, owner or name)
    if scope:
        return scope
    if side == "kernel":
        return "AscendC"
    if owner:
        m = re.search(rf"\b(\w+)::{re.escape(owner)}\b", "\n".join(b.code for b in page.blocks) + page.example)
        if m:
            return m.group(1)
    for prefix, (_, ns) in HOST_FOLDERS.items():
        if rel.startswith(prefix):
            return ns
    return "AscendC"


def page_forms(rel: str, page: Page) -> list[dict]:
    """The forms one page documents: functions and members from its prototype blocks, macros, and the types and
    fields of the structs it defines."""
    out = []
    for block in page.blocks:
        code = block.code
        if "#define" in code:
            for m in re.finditer(r"#define\s+(\w+)(\([^)]*\))?", code):
                out.append({"kind": "macro", "name": m.group(1), "text": m.group(0)[len("#define") :].strip()})
            continue
        if re.search(r"^\s*(?:template\s*<[^\n]*>\s*)?(?:struct|class|enum)\s+\w+[^;\n()]*\{?\s*$", code, re.M):
            out.extend(_types(code, block.variant))
            continue
        for template, decl in declarations(code):
            decl = re.sub(r"\)\s*:\s*[A-Za-z_][\w:<>, ]*\(.*$", ")", decl)  # a constructor's initialisers
            decl = re.sub(r"\s*\{[^{}]*\}\s*$", "", decl).strip()  # an inline body
            sig = parse_declaration(decl, template)
            t = re.fullmatch(r"(?:struct|class)\s+(\w+)(?:\s*:.*)?", decl)
            if sig is None and t:  # a type declared without its body (the type traits' pages)
                out.append(
                    {
                        "kind": "type",
                        "name": t.group(1),
                        "template": template,
                        "text": f"{template} {decl}".strip(),
                        "variant": block.variant,
                    }
                )
                continue
            if sig is None:
                macro = re.fullmatch(r"([A-Z][A-Z0-9_]+)(\s*\(.*\))?", decl)
                if macro:
                    out.append({"kind": "macro", "name": macro.group(1), "text": decl})
                continue
            if not sig.return_type and re.fullmatch(r"[A-Z][A-Z0-9_]+", sig.name):
                out.append({"kind": "macro", "name": sig.name, "text": decl})
                continue
            out.append(
                {
                    "kind": "function",
                    "name": sig.name,
                    "template": template,
                    "text": squash(decl),
                    "variant": block.variant,
                    "sig": sig,
                }
            )
    for code in page.struct_blocks:
        out.extend(_types(code, ""))
    return out


def _types(code: str, variant: str) -> list[dict]:
    out = []
    for name, enumerators in enum_defs(code):
        out.append({"kind": "type", "name": name, "template": "", "text": f"enum {name}", "variant": variant})
        out += [{"kind": "field", "name": e, "owner": name, "text": f"{name}::{e}", "variant": ""} for e in enumerators]
    for name, template, members in struct_fields(code):
        out.append(
            {
                "kind": "type",
                "name": name,
                "template": template,
                "text": f"{template} struct {name}".strip(),
                "variant": variant,
            }
        )
        for member in members:
            field = re.search(r"(\w+)(\[\w*\])?$", member)
            if field and not member.startswith(("static", "constexpr")):
                out.append({"kind": "field", "name": field.group(1), "owner": name, "text": member, "variant": ""})
    return out


def supported(pages: dict[str, Page]) -> dict[str, bool]:
    """Whether each page holds for the A2: its own support list, else its folder's, else the nearest enclosing
    folder's that says anything (any page there that the A2 supports; nothing said anywhere, kept). A host page
    (GetSinMaxMinTmpSize) follows its kernel API's support; a Reg-API enum page its 950-only section's."""
    said: dict[str, list[bool]] = {}
    for rel, page in pages.items():
        if page.a2 is not None:
            parts = rel.split("/")[:-1]
            for i in range(len(parts), 0, -1):
                said.setdefault("/".join(parts[:i]), []).append(page.a2)
    out = {}
    for rel, page in pages.items():
        if page.a2 is not None:
            out[rel] = page.a2
            continue
        parts = rel.split("/")[:-1]
        near = next((said["/".join(parts[:i])] for i in range(len(parts), 0, -1) if "/".join(parts[:i]) in said), [])
        out[rel] = any(near) if near else True
    return out


def listed(pages: dict[str, str]) -> list[tuple[str, str]]:
    """The APIs the reference's list pages name, as (name, the page it links)."""
    out = []
    for lst in LISTS + ("SIMD-API/C-API/C-API.md",):
        base = lst.rsplit("/", 1)[0]
        for m in re.finditer(r"^\|\s*\[([^\]]+)\]\(([^)#]+)", pages.get(lst, ""), re.M):
            out.append((m.group(1), str(Path(base, m.group(2)))))
    return out


def corpus_includes(corpus: Path, sources: Path) -> Counter[str]:
    """How many files of the corpus's development partition include each path (quoted or angled) that is not a
    file of the including repository itself, counting only paths that two repositories or more include: a CANN
    header, not one repository's neighbour."""
    parts = tomllib.loads(sources.read_text())["repo"]
    counts: Counter[str] = Counter()
    repos: dict[str, set[str]] = {}
    inc = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
    for repo in parts:
        if repo["partition"] != "development" or not (corpus / repo["id"]).is_dir():
            continue
        files = [f for f in (corpus / repo["id"]).rglob("*") if f.is_file()]
        own: set[str] = set()  # every tail of the repository's file paths: what an include of its own files can spell
        for f in files:
            parts = f.relative_to(corpus / repo["id"]).parts
            own.update("/".join(parts[i:]) for i in range(len(parts)))
        for f in files:
            if f.suffix in (".h", ".hpp", ".cpp", ".cc", ".asc"):
                for m in inc.finditer(f.read_text(errors="replace")):
                    path = m.group(1)
                    if path not in own:  # not the repository's own file
                        counts[path] += 1
                        repos.setdefault(path, set()).add(repo["id"])
    return Counter({p: n for p, n in counts.items() if len(repos[p]) >= 2})


# Roots of the public CANN include tree that hold AscendC kernel or tiling API headers: a corpus include under one
# of them (and not found beside the including file) is a commonly included API header path.
API_ROOTS = (
    "kernel_operator",
    "lib/",
    "adv_api/",
    "basic_api/",
    "kernel_tiling/",
    "register/",
    "tiling/",
    "platform/",
    "exe_graph/",
    "impl/",
    "error/",
    "c_api/",
    "interface/",
)
HOST_ROOTS = ("register/", "tiling/", "platform/", "exe_graph/", "error/")


def build(repo: Path, corpus: Path | None) -> dict:
    commit = git(repo, "rev-parse", "HEAD").strip()
    raw = read_docs(repo)
    pages = {rel: read_page(rel, text) for rel, text in raw.items()}
    ok = supported(pages)
    tree = tree_headers(repo)
    per_page = {rel: page_forms(rel, p) for rel, p in sorted(pages.items()) if ok[rel]}
    adv = {f["name"] for rel, fs in per_page.items() if rel.startswith("SIMD-API/高阶API/") for f in fs}
    declared = declaring_files(repo, {n for n in adv if re.fullmatch(r"[A-Z]\w+", n)})
    apis: dict[tuple[str, str, str], dict] = {}
    keys: set[str] = set()
    for rel, forms in per_page.items():
        page = pages[rel]
        for f in forms:
            _add(apis, keys, rel, page, f, tree, declared, commit)
    for entry in _extra():
        _add_extra(apis, keys, entry)
    # a listed class's page (TPipe/TPipe.md) documents what its folder's member pages hold
    documented_pages = {rel for rel, fs in per_page.items() if fs}
    documented_pages |= {
        r for r in per_page if any(d.rsplit("/", 1)[0] == r.rsplit("/", 1)[0] for d in documented_pages)
    }
    lst = listed(raw)
    found = [(n, p) for n, p in lst if p in documented_pages]
    on_a2 = [(n, p) for n, p in lst if ok.get(p, False)]
    headers = _headers(apis, corpus)
    return {
        "schema": 1,
        "source": {"repo": REPO, "commit": commit, "docs": DOCS, "extra": str(EXTRA.relative_to(ROOT))},
        "reference": {
            "listed": len(lst),
            "listed_on_a2": len(on_a2),
            "listed_indexed": len(found),
            "listed_missing": sorted({n for n, p in on_a2 if p not in documented_pages}),
            "pages_read": len(pages),
            "pages_on_a2": sum(ok.values()),
        },
        "headers": headers,
        "apis": sorted(apis.values(), key=lambda a: (a["unit"], a["side"], a["header"], a["qualified"])),
    }


def _add(apis, keys, rel: str, page: Page, f: dict, tree, declared, commit: str) -> None:
    name, kind = f["name"], f["kind"]
    owner = f.get("owner") or (owner_of(rel, name) if kind == "function" else "")
    folder = rel.rsplit("/", 2)[-2] if "/" in rel else ""
    if kind == "function" and not owner and folder == name and f["sig"].return_type == "":
        owner = name  # a constructor's page in its class's folder (OpMC2Def/OpMC2Def.md)
    if kind == "function" and owner and name != owner and _called_free(page.example, name, owner):
        owner = ""  # a free function documented beside a class (Layout/MakeShape.md: AscendC::MakeShape(...))
    if kind == "function" and owner:
        kind = "constructor" if name in (owner, f"~{owner}") else "member"
    side = "kernel" if kind in ("type", "field") and not rel.startswith("Utils-API/") else side_of(rel, f["text"])
    if kind == "macro" and rel.startswith(("SIMD-API/基础API/Kernel-Tiling/",)):
        side = "kernel"
    unit = unit_of(rel, name, owner)
    ns = "" if kind == "macro" else namespace_for(rel, page, name, owner, side)
    scope = "::".join(x for x in (ns, owner) if x)
    qualified = f"{scope}::{name}" if scope else name
    header, header_from = header_for(rel, page, owner or name, side, tree, declared)
    sig = f.get("sig")
    key = form_key(qualified, sig, f["text"]) if kind != "field" else f"{qualified}: {squash(f['text'])}"
    if key in keys:
        return
    keys.add(key)
    group = "function" if kind in ("function", "member", "constructor") else kind
    api = apis.setdefault(
        (qualified, group, header),  # one entry per header: a basic and a high-level ReduceMax are two
        {
            "name": name,
            "qualified": qualified,
            "owner": owner,
            "kind": kind,
            "side": side,
            "unit": unit,
            "header": header,
            "header_from": header_from,
            "aliases": _aliases(header, tree) if header_from == "tree" else [],
            "dtypes": page.dtypes,
            "doc": f"{DOCS}/{rel}",
            "url": URL.format(repo=REPO, commit=commit, path=f"{DOCS}/{rel}"),
            "forms": [],
        },
    )
    api["forms"].append(
        {
            "key": key,
            "kind": kind,
            "template": f.get("template", ""),
            "signature": f["text"],
            "variant": f.get("variant", ""),
        }
    )


def _called_free(example: str, name: str, owner: str) -> bool:
    """Whether the page's example calls `name` through a namespace, never on an object or through its class."""
    if re.search(rf"(?:\.|->)\s*{re.escape(name)}\s*[(<]|\b{re.escape(owner)}\w*::{re.escape(name)}\b", example):
        return False
    return re.search(rf"(?:^|[\s=(,])(?:\w+::)*{re.escape(name)}\s*[(<]", example, re.M) is not None


def _aliases(header: str, tree: list[str]) -> list[str]:
    """Other public spellings of a high-level kernel header: `lib/` for `adv_api/` (lib/math/sin.h), and the
    interface header beside it that operators include by path (lib/math/kernel_operator_sin_intf.h)."""
    if not header.startswith("adv_api/"):
        return []
    folder, stem = header[len("adv_api/") :].rsplit("/", 1)
    out = [f"lib/{folder}/{stem}"]
    intf = f"adv_api/{folder}/kernel_operator_{stem[:-2]}_intf.h"
    if intf in tree:
        out += [f"lib/{folder}/kernel_operator_{stem[:-2]}_intf.h"]
    return out


def _extra() -> list[dict]:
    return tomllib.loads(EXTRA.read_text(encoding="utf-8")).get("api", []) if EXTRA.is_file() else []


def _add_extra(apis, keys, entry: dict) -> None:
    """An entry of api_index_extra.toml: one class's or function's documented forms, with the page's URL."""
    owner = entry.get("owner", "")
    for name in entry.get("types", []):
        qualified = f"{entry['namespace']}::{name}"
        key = f"{qualified}: struct {name}"
        if key not in keys:
            keys.add(key)
            apis[(qualified, "type", entry["header"])] = {
                "name": name,
                "qualified": qualified,
                "owner": "",
                "kind": "type",
                "side": entry.get("side", "host"),
                "unit": "vector",
                "header": entry["header"],
                "header_from": "page",
                "aliases": [],
                "dtypes": {},
                "doc": entry["url"],
                "url": entry["url"],
                "forms": [{"key": key, "kind": "type", "template": "", "signature": f"class {name}", "variant": ""}],
            }
    for text in entry["forms"]:
        template, _, decl = text.partition("\n") if text.startswith("template") else ("", "", text)
        sig = parse_declaration(decl, template)
        if sig is None:
            raise SystemExit(f"api_index_extra.toml: cannot read {text!r}")
        name = sig.name
        kind = "member" if owner else "function"
        if owner and name in (owner, f"~{owner}"):
            kind = "constructor"
        qualified = "::".join(x for x in (entry["namespace"], owner, name) if x)
        key = form_key(qualified, sig, decl)
        if key in keys:
            continue
        keys.add(key)
        api = apis.setdefault(
            (qualified, "function", entry["header"]),
            {
                "name": name,
                "qualified": qualified,
                "owner": owner,
                "kind": kind,
                "side": entry.get("side", "host"),
                "unit": entry.get("unit", "vector"),
                "header": entry["header"],
                "header_from": "page",
                "aliases": [],
                "dtypes": {},
                "doc": entry["url"],
                "url": entry["url"],
                "forms": [],
            },
        )
        api["forms"].append({"key": key, "kind": kind, "template": template, "signature": squash(decl), "variant": ""})


def _headers(apis: dict, corpus: Path | None) -> list[dict]:
    named = Counter(a["header"] for a in apis.values())
    alias = {h for a in apis.values() for h in a["aliases"]}
    uses: Counter[str] = Counter()
    if corpus is not None:
        uses = corpus_includes(corpus, ROOT / "benchmarks" / "corpus" / "sources.toml")
    paths = set(named) | alias | {p for p, n in uses.items() if n >= 3 and p.startswith(API_ROOTS)}
    out = []
    for p in sorted(paths):
        side = "host" if p.startswith(HOST_ROOTS) or p in (HOST_TILING,) else "kernel"
        out.append(
            {"path": p, "side": side, "apis": named.get(p, 0), "alias": p in alias, "corpus_uses": uses.get(p, 0)}
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path, help="the asc-devkit git directory (fetch mirror-cann/asc-devkit)")
    ap.add_argument("--corpus", type=Path, help="the corpus folder (benchmarks/corpus_fetch.py), for include counts")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    index = build(args.repo, args.corpus)
    args.out.write_text(json.dumps(index, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    forms = sum(len(a["forms"]) for a in index["apis"])
    print(f"{len(index['apis'])} APIs, {forms} forms, {len(index['headers'])} header paths -> {args.out}")
    ref = index["reference"]
    print(
        f"the reference lists {ref['listed']} APIs ({ref['listed_on_a2']} on the A2); {ref['listed_indexed']} indexed"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
