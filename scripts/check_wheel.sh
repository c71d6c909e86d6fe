#!/usr/bin/env bash
# The proof that a tilewise wheel carries everything (issue 31), end to end as a new user meets it: a fresh clone of
# the current commit, `python -m build` there (the sdist, then the wheel from the sdist), a new virtual environment
# outside any checkout with the wheel installed and no node or npm on its PATH, then in an empty folder:
# `tilewise examples`, `run --html`, `tune --html`, `serve` answering an LSP initialize, and none of the old
# top-level packages importable. One line per check; the first failure prints its log's tail and exits 1.
#
#   bash scripts/check_wheel.sh                 # build from a fresh clone of HEAD (uncommitted changes are not in it)
#   bash scripts/check_wheel.sh --wheel W.whl   # check a wheel built already (skips the clone and the build)
#
# The build needs npm (the charts bundle); the checks after it must not. KEEP=1 keeps the temporary folder.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
wheel=""
if [ "${1:-}" = "--wheel" ]; then
    wheel="$(realpath "${2:?--wheel needs a .whl file}")"
fi
# The frontend that builds: `build` is in the test extras, so the checkout's .venv has it.
build_python="${BUILD_PYTHON:-$repo/.venv/bin/python}"
base_python="${PYTHON:-python3}"  # the interpreter the new virtual environment is made from

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tilewise-check-wheel.XXXXXX")"
logs="$tmp/logs"
mkdir -p "$logs"
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

ok() { echo "ok   $1"; }
fail() { # fail WHAT [LOG]: the failure line, the log's last lines, exit 1
    echo "FAIL $1"
    if [ -n "${2:-}" ] && [ -f "$2" ]; then tail -n 25 "$2" | sed 's/^/     | /'; fi
    exit 1
}

# ---- build: a fresh clone of the commit checked out here, sdist then wheel
if [ -z "$wheel" ]; then
    commit="$(git -C "$repo" rev-parse HEAD)"
    git clone --quiet --no-hardlinks "$repo" "$tmp/clone" >"$logs/clone.log" 2>&1 &&
        git -C "$tmp/clone" checkout --quiet --detach "$commit" >>"$logs/clone.log" 2>&1 ||
        fail "clone $repo at ${commit:0:12}" "$logs/clone.log"
    ok "fresh clone of ${commit:0:12} in $tmp/clone"
    "$build_python" -m build --version >/dev/null 2>&1 ||
        fail "python -m build: $build_python has no 'build' (pip install -e '.[test]' installs it)"
    (cd "$tmp/clone" && "$build_python" -m build) >"$logs/build.log" 2>&1 ||
        fail "python -m build in the clone" "$logs/build.log"
    shopt -s nullglob
    wheels=("$tmp"/clone/dist/tilewise-*.whl)
    sdists=("$tmp"/clone/dist/tilewise-*.tar.gz)
    shopt -u nullglob
    [ "${#wheels[@]}" = 1 ] && [ "${#sdists[@]}" = 1 ] ||
        fail "python -m build made ${#sdists[@]} sdists and ${#wheels[@]} wheels, not one each" "$logs/build.log"
    wheel="${wheels[0]}"
    ok "python -m build: dist/$(basename "${sdists[0]}") and dist/$(basename "$wheel") (the wheel built from the sdist)"
fi

# ---- what the wheel holds: tilewise/ and its dist-info, nothing else at the top; the data it needs at run time
"$base_python" - "$wheel" >"$logs/contents.log" 2>&1 <<'EOF' || fail "the wheel's contents" "$logs/contents.log"
import sys, zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
top = sorted({n.split("/")[0] for n in names})
others = [t for t in top if t != "tilewise" and not (t.startswith("tilewise-") and t.endswith(".dist-info"))]
if others:
    sys.exit(f"top-level entries besides tilewise/ and its dist-info: {', '.join(others)} (all: {', '.join(top)})")
needed = [
    "tilewise/report/charts.js",
    "tilewise/examples/add_custom/tilewise.toml",
    "tilewise/examples/README.md",
    "tilewise/device/emulator/include/kernel_operator.h",
    "tilewise/search/bank/shipped.json",
]
missing = [n for n in needed if n not in names]
if missing:
    sys.exit(f"the wheel lacks {', '.join(missing)}")
headers = [n for n in names if n.startswith("tilewise/device/emulator/include/")]
print(f"top level: {', '.join(top)}; {len(names)} files, {len(headers)} emulator headers and sources")
EOF
ok "the wheel's top level is $(sed -n 's/^top level: \([^;]*\);.*/\1/p' "$logs/contents.log") only; it holds the charts bundle, the examples and $(grep -o '[0-9]* emulator headers' "$logs/contents.log")"

# ---- a PATH with no node and no npm: every PATH folder that holds one is replaced by a folder of links to the rest
nonode="$tmp/path-without-node"
mkdir -p "$nonode"
clean_path=""
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    if [ -e "$d/node" ] || [ -e "$d/npm" ] || [ -e "$d/nodejs" ] || [ -e "$d/npx" ]; then
        for f in "$d"/*; do
            name="$(basename "$f")"
            case "$name" in node | nodejs | npm | npx | corepack) continue ;; esac
            [ -e "$nonode/$name" ] || ln -s "$f" "$nonode/$name"
        done
        d="$nonode"
    fi
    case ":$clean_path:" in *":$d:"*) ;; *) clean_path="${clean_path:+$clean_path:}$d" ;; esac
done
venv="$tmp/venv"
"$base_python" -m venv "$venv" >"$logs/venv.log" 2>&1 || fail "python -m venv $venv" "$logs/venv.log"
# The user's shell: the venv first, no node, nothing from the checkout (no PYTHONPATH, no TILEWISE_* setting such as
# a bundle named by hand or a test session's build cache), caches of its own (a cold first run, as on a new machine).
unset_tilewise=()
while IFS= read -r name; do unset_tilewise+=(-u "$name"); done < <(compgen -e | grep '^TILEWISE_' || true)
user() {
    env -u PYTHONPATH -u VIRTUAL_ENV "${unset_tilewise[@]}" PATH="$venv/bin:$clean_path" \
        TILEWISE_CACHE="$tmp/cache" "$@"
}
if user sh -c 'command -v node || command -v npm' >"$logs/path.log" 2>&1; then
    fail "node or npm is still on the stripped PATH: $(cat "$logs/path.log")"
fi
user "$venv/bin/python" -m pip install --quiet "$wheel" >"$logs/install.log" 2>&1 ||
    fail "pip install $(basename "$wheel") into a new venv" "$logs/install.log"
ok "pip install $(basename "$wheel") into a new venv outside any checkout, no node or npm on PATH"

work="$tmp/user"
mkdir -p "$work"
cd "$work"
user python -c "import tilewise, sys; print(tilewise.__file__); sys.exit(not tilewise.__file__.startswith('$venv/'))" \
    >"$logs/where.log" 2>&1 || fail "tilewise imports from the venv, not from a checkout" "$logs/where.log"

# ---- the commands, from an empty folder
user tilewise examples ops >"$logs/examples.log" 2>&1 || fail "tilewise examples ops" "$logs/examples.log"
[ -f ops/add_custom/tilewise.toml ] && [ -f ops/add_custom/op_kernel/add_custom.cpp ] ||
    fail "tilewise examples ops wrote no ops/add_custom" "$logs/examples.log"
ok "tilewise examples ops: $(tail -n 1 "$logs/examples.log" | cut -d';' -f1)"

# The page must hold the very bundle the wheel carries (inlined, with "</script" escaped as write_report does).
holds_bundle() {
    user python - "$1" <<'EOF'
import sys
from importlib.resources import files
from pathlib import Path

page = Path(sys.argv[1]).read_text(encoding="utf-8")
bundle = files("tilewise.report").joinpath("charts.js").read_text(encoding="utf-8").replace("</script", "<\\/script")
assert len(bundle) > 10_000, f"the packaged bundle is only {len(bundle)} characters"
assert bundle in page, f"{sys.argv[1]} does not hold the packaged charts bundle"
assert 'id="tilewise-report"' in page, f"{sys.argv[1]} holds no report data"
print(f"{sys.argv[1]}: {len(page)} characters, the {len(bundle)}-character bundle inside")
EOF
}

# exit 0: built, ran and matched its golden (run exits 1 on a wrong output)
user tilewise run ops/add_custom --case fp16_base --html r.html >"$logs/run.log" 2>&1 ||
    fail "tilewise run ops/add_custom --html r.html" "$logs/run.log"
holds_bundle r.html >>"$logs/run.log" 2>&1 || fail "r.html holds the charts bundle" "$logs/run.log"
ok "tilewise run ops/add_custom --case fp16_base --html r.html: $(head -n 1 "$logs/run.log"); $(tail -n 1 "$logs/run.log")"

user tilewise tune ops/add_custom --case fp16_base --budget 2 --workers 1 --no-cache --html t.html \
    >"$logs/tune.log" 2>&1 || fail "tilewise tune ops/add_custom --budget 2 --html t.html" "$logs/tune.log"
holds_bundle t.html >>"$logs/tune.log" 2>&1 || fail "t.html holds the charts bundle" "$logs/tune.log"
best="$(grep -m1 '^best found:' "$logs/tune.log" | tr -s ' ' || true)"
ok "tilewise tune ops/add_custom --case fp16_base --budget 2 --html t.html: ${best}; $(tail -n 1 "$logs/tune.log")"

# ---- the language server over stdio: Content-Length framed JSON-RPC, initialize, then shutdown and exit
user python - >"$logs/serve.log" 2>&1 <<'EOF' || fail "tilewise serve answers initialize" "$logs/serve.log"
import json, os, subprocess, sys, threading

server = subprocess.Popen(["tilewise", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
threading.Timer(60, server.kill).start()  # a server that never answers fails the check instead of hanging it


def send(message):
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    server.stdin.flush()


def receive(want_id):
    while True:  # skip notifications and the server's own requests until the answer to want_id
        length = None
        while (line := server.stdout.readline().strip()) != b"":  # headers, up to the blank line
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        if length is None:
            sys.exit("the server closed its output before answering")
        message = json.loads(server.stdout.read(length))
        if message.get("id") == want_id and "method" not in message:
            return message


send({"id": 1, "method": "initialize", "params": {"processId": os.getpid(), "rootUri": None, "capabilities": {}}})
answer = receive(1)
if "result" not in answer or "capabilities" not in answer["result"]:
    sys.exit(f"initialize answered without capabilities: {answer}")
info = answer["result"].get("serverInfo", {})
send({"method": "initialized", "params": {}})
send({"id": 2, "method": "shutdown"})
receive(2)
send({"method": "exit"})
code = server.wait(timeout=30)
print(f"{info.get('name')} {info.get('version')}: {len(answer['result']['capabilities'])} capabilities; exit {code}")
sys.exit(0 if code == 0 else f"the server exited {code} after shutdown and exit")
EOF
ok "tilewise serve answers initialize over stdio: $(tail -n 1 "$logs/serve.log")"

# ---- nothing but tilewise is importable: the old top-level packages are gone
for name in server analysis device search; do
    if user python -c "import $name" >"$logs/import-$name.log" 2>&1; then
        fail "python -c 'import $name' succeeds in the venv; only tilewise may be importable"
    fi
    grep -q "ModuleNotFoundError: No module named '$name'" "$logs/import-$name.log" ||
        fail "python -c 'import $name' fails, but not because there is no such module" "$logs/import-$name.log"
done
ok "python -c 'import server' (and analysis, device, search) fails: No module named ..."
echo "all checks passed"
