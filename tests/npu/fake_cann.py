"""A fake CANN installation for the NPU device's tests: no NPU exists here, so the tools behave as documented
(../shared/REAL_DEVICE.md) and the "device" is the CPU.

- `include/acl/acl.h` and `lib64/libascendcl.so`: the runtime and tensor calls the aclnn harness makes
  (aclInit, aclrtSetDevice, aclrtMalloc, aclrtMemcpy, aclCreateTensor, ...), over host memory;
- `bin/npu-smi`: `info` prints a table whose Name column is 910B3 for card 0;
- `bin/msprof`: `op --output=DIR ... APP ARGS` runs the application and writes `DIR/OPPROF_<ts>_XYZ/` with
  OpBasicInfo.csv and PipeUtilization.csv in the documented headers. Environment switches make it misbehave the
  ways the tests need: FAKE_MSPROF_FREQ (the current frequency: 800 is a down-clocked row), FAKE_MSPROF_REORDER
  (columns in another order), FAKE_MSPROF_OP_NAME (the row's op name), FAKE_MSPROF_HANG (never ends). It fails
  when ASCEND_RT_VISIBLE_DEVICES is set, as msprof op is documented not to support it.
- `operator_build_sh()`: an operator project's `build.sh` that "compiles" (a line containing SYNTAX_ERROR_HERE is
  reported the way a compiler reports an error) and packs `build_out/custom_opp_ubuntu_x86_64.run`, whose
  `--install-path=P` installs `P/vendors/customize/op_api/{include/aclnn_add_custom.h,lib/libcust_opapi.so}`:
  an AddCustom that adds on the CPU.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

ACL_H = r"""
#pragma once
#include <cstddef>
#include <cstdint>
typedef int aclError;
typedef int aclnnStatus;
typedef void* aclrtStream;
typedef enum { ACL_FLOAT = 0, ACL_FLOAT16 = 1, ACL_INT32 = 3 } aclDataType;
typedef enum { ACL_FORMAT_ND = 2 } aclFormat;
typedef enum { ACL_MEM_MALLOC_HUGE_FIRST = 0 } aclrtMemMallocPolicy;
typedef enum { ACL_MEMCPY_HOST_TO_DEVICE = 1, ACL_MEMCPY_DEVICE_TO_HOST = 2 } aclrtMemcpyKind;
struct aclTensor { int64_t n; int dtype; void* data; };
struct aclOpExecutor { const aclTensor* a; const aclTensor* b; aclTensor* out; };
extern "C" {
aclError aclInit(const char*);
aclError aclFinalize();
aclError aclrtSetDevice(int32_t);
aclError aclrtResetDevice(int32_t);
aclError aclrtCreateStream(aclrtStream*);
aclError aclrtDestroyStream(aclrtStream);
aclError aclrtSynchronizeStream(aclrtStream);
aclError aclrtMalloc(void**, size_t, aclrtMemMallocPolicy);
aclError aclrtFree(void*);
aclError aclrtMemcpy(void*, size_t, const void*, size_t, aclrtMemcpyKind);
aclTensor* aclCreateTensor(const int64_t*, uint64_t, aclDataType, const int64_t*, int64_t, aclFormat,
                           const int64_t*, uint64_t, void*);
aclnnStatus aclDestroyTensor(const aclTensor*);
}
"""

ACL_CPP = r"""
#include "acl/acl.h"
#include <cstdlib>
#include <cstring>
extern "C" {
aclError aclInit(const char*) { return 0; }
aclError aclFinalize() { return 0; }
aclError aclrtSetDevice(int32_t id) { return id == 0 ? 0 : 107001; }
aclError aclrtResetDevice(int32_t) { return 0; }
aclError aclrtCreateStream(aclrtStream* s) { *s = (void*)1; return 0; }
aclError aclrtDestroyStream(aclrtStream) { return 0; }
aclError aclrtSynchronizeStream(aclrtStream) { return 0; }
aclError aclrtMalloc(void** p, size_t n, aclrtMemMallocPolicy) { *p = std::malloc(n); return *p ? 0 : 207001; }
aclError aclrtFree(void* p) { std::free(p); return 0; }
aclError aclrtMemcpy(void* d, size_t, const void* s, size_t n, aclrtMemcpyKind) { std::memcpy(d, s, n); return 0; }
aclTensor* aclCreateTensor(const int64_t* dims, uint64_t rank, aclDataType dt, const int64_t*, int64_t, aclFormat,
                           const int64_t*, uint64_t, void* data) {
    int64_t n = 1;
    for (uint64_t i = 0; i < rank; ++i) n *= dims[i];
    return new aclTensor{n, (int)dt, data};
}
aclnnStatus aclDestroyTensor(const aclTensor* t) { delete t; return 0; }
}
"""

OPAPI_H = r"""
#pragma once
#include "acl/acl.h"
extern "C" {
aclnnStatus aclnnAddCustomGetWorkspaceSize(const aclTensor* x, const aclTensor* y, const aclTensor* z,
                                           uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnAddCustom(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);
}
"""

OPAPI_CPP = r"""
#include "aclnn_add_custom.h"
extern "C" {
aclnnStatus aclnnAddCustomGetWorkspaceSize(const aclTensor* x, const aclTensor* y, const aclTensor* z,
                                           uint64_t* ws, aclOpExecutor** ex) {
    if (x->n != y->n || x->n != z->n || x->dtype != y->dtype) return 161002;
    *ws = 0;
    *ex = new aclOpExecutor{x, y, const_cast<aclTensor*>(z)};
    return 0;
}
aclnnStatus aclnnAddCustom(void*, uint64_t, aclOpExecutor* e, aclrtStream) {
    if (e->a->dtype == ACL_FLOAT16) {
        auto a = (const _Float16*)e->a->data; auto b = (const _Float16*)e->b->data; auto o = (_Float16*)e->out->data;
        for (int64_t i = 0; i < e->a->n; ++i) o[i] = (_Float16)((float)a[i] + (float)b[i]);
    } else {
        auto a = (const float*)e->a->data; auto b = (const float*)e->b->data; auto o = (float*)e->out->data;
        for (int64_t i = 0; i < e->a->n; ++i) o[i] = a[i] + b[i];
    }
    delete e;
    return 0;
}
}
"""

NPU_SMI = """#!/usr/bin/env python3
import sys
if sys.argv[1:] != ["info"]:
    sys.exit(2)
print("+------------------------------------------------------------------------------------------------+")
print("| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |")
print("+---------------------------+---------------+----------------------------------------------------+")
print("| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|")
print("+===========================+===============+====================================================+")
print("| 0     910B3               | OK            | 93.4        36                0    / 0             |")
print("| 0                         | 0000:C1:00.0  | 0           0    / 0          3396 / 65536         |")
"""

MSPROF = """#!/usr/bin/env python3
import os, subprocess, sys, time
from pathlib import Path
args = sys.argv[1:]
if not args or args[0] != "op":
    sys.exit(2)
if os.environ.get("ASCEND_RT_VISIBLE_DEVICES"):
    print("msprof op does not support ASCEND_RT_VISIBLE_DEVICES", file=sys.stderr)
    sys.exit(1)
opts, app = {}, []
for i, a in enumerate(args[1:], 1):
    if a.startswith("--"):
        k, _, v = a[2:].partition("=")
        opts[k] = v
    else:
        app = args[i:]
        break
if os.environ.get("FAKE_MSPROF_HANG"):
    time.sleep(3600)
proc = subprocess.run(app)
if proc.returncode != 0:
    sys.exit(proc.returncode)
out = Path(opts["output"]) / "OPPROF_20261128120000_ABCDEFGH"
out.mkdir(parents=True)
name = os.environ.get("FAKE_MSPROF_OP_NAME", opts.get("kernel-name", "op").rstrip("*") + "_0")
freq = os.environ.get("FAKE_MSPROF_FREQ", "1800")
basic = ["Op Name", "Op Type", "Task Duration(us)", "Block Dim", "Mix Block Dim", "Device Id", "Pid", "Current Freq",
         "Rated Freq"]
row = [name, "vector", "12.500000", "8", "NA", "0", "4242", freq, "1800"]
pipe = ["block_id", "sub_block_id", "aiv_time(us)", "aiv_total_cycles", "aiv_vec_time(us)", "aiv_vec_ratio",
        "aiv_scalar_time(us)", "aiv_scalar_ratio", "aiv_mte2_time(us)", "aiv_mte2_ratio", "aiv_mte2_active_bw(GB/s)",
        "aiv_mte3_time(us)", "aiv_mte3_ratio", "aiv_mte3_active_bw(GB/s)", "aiv_icache_miss_rate"]
rows = [[str(b), "0", "10.0", "18000", "1.0", "0.1", "0.5", "0.05", "8.0", "0.8", "100.0", "2.0", "0.2", "90.0", "0.01"]
        for b in range(8)]
if os.environ.get("FAKE_MSPROF_REORDER"):
    order = list(reversed(range(len(basic))))
    basic, row = [basic[i] for i in order], [row[i] for i in order]
    porder = list(reversed(range(len(pipe))))
    pipe, rows = [pipe[i] for i in porder], [[r[i] for i in porder] for r in rows]
(out / "OpBasicInfo.csv").write_text(",".join(basic) + "\\n" + ",".join(row) + ",\\n")
(out / "PipeUtilization.csv").write_text(",".join(pipe) + "\\n" + "".join(",".join(r) + "\\n" for r in rows))
"""

BUILD_SH = r"""#!/bin/bash
# A fake msopgen build.sh: "compiles" the kernel and packs an installer, as the real one leaves build_out/*.run.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
bad=$(grep -Hn SYNTAX_ERROR_HERE op_kernel/*.cpp | head -1 || true)
if [ -n "$bad" ]; then
    file="${bad%%:*}"; rest="${bad#*:}"; line="${rest%%:*}"
    echo "[ERROR] compiling the kernel" >&2
    echo "$here/$file:$line:5: error: use of undeclared identifier 'SYNTAX_ERROR_HERE'" >&2
    exit 1
fi
if [ -n "$FAKE_BUILD_HANG" ]; then sleep 3600; fi
test -n "$ASCEND_HOME_PATH"
mkdir -p build_out/pkg/op_api/include build_out/pkg/op_api/lib
cp "$ASCEND_HOME_PATH/fake/aclnn_add_custom.h" build_out/pkg/op_api/include/
g++ -shared -fPIC -O1 -I"$ASCEND_HOME_PATH/include" -Ibuild_out/pkg/op_api/include \
    "$ASCEND_HOME_PATH/fake/opapi.cpp" -o build_out/pkg/op_api/lib/libcust_opapi.so
run=build_out/custom_opp_ubuntu_x86_64.run
cat > "$run" <<EOF
#!/bin/bash
set -e
for a in "\$@"; do case "\$a" in --install-path=*) dest="\${a#--install-path=}";; esac; done
test -n "\$dest"
mkdir -p "\$dest/vendors/customize"
cp -r "$here/build_out/pkg/op_api" "\$dest/vendors/customize/"
echo "SUCCESS"
EOF
chmod +x "$run"
"""


MSOPGEN = """#!/usr/bin/env python3
# A fake msopgen: `gen -i op.json -c ai_core-<soc> -lan cpp -out DIR` makes a project with build.sh, presets and stubs.
import json, re, sys
from pathlib import Path
a = sys.argv[1:]
if a[:1] != ["gen"] or "-i" not in a or "-out" not in a or not a[a.index("-c") + 1].startswith("ai_core-Ascend"):
    sys.exit(2)
[op] = json.loads(Path(a[a.index("-i") + 1]).read_text())
out = Path(a[a.index("-out") + 1])
stem = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\\1", op["op"]).lower()
for part in ("op_host", "op_kernel"):
    (out / part).mkdir(parents=True)
    (out / part / f"{stem}.cpp").write_text("// generated stub: NOT_REPLACED")
(out / "build.sh").write_text(Path(__file__).with_name("fake_build.sh").read_text())
presets = {"configurePresets": [{"name": "default", "cacheVariables": {
    "ASCEND_CANN_PACKAGE_PATH": {"type": "PATH", "value": "/usr/local/Ascend/latest"},
    "ASCEND_COMPUTE_UNIT": {"type": "STRING", "value": "ascend310p"}}}]}
(out / "CMakePresets.json").write_text(json.dumps(presets))
(out / "op.json").write_text(json.dumps(op))
"""


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def make_fake_cann(root: Path) -> Path:
    """Write the fake toolkit under `root` and compile its runtime; returns its home (ASCEND_HOME_PATH)."""
    (root / "include/acl").mkdir(parents=True)
    (root / "include/acl/acl.h").write_text(ACL_H)
    (root / "fake").mkdir()
    (root / "fake/acl.cpp").write_text(ACL_CPP)
    (root / "fake/aclnn_add_custom.h").write_text(OPAPI_H)
    (root / "fake/opapi.cpp").write_text(OPAPI_CPP)
    (root / "lib64").mkdir()
    inc = f"-I{root / 'include'}"
    subprocess.run(
        ["g++", "-shared", "-fPIC", "-O1", inc, str(root / "fake/acl.cpp"), "-o", str(root / "lib64/libascendcl.so")],
        check=True,
    )
    subprocess.run(
        ["g++", "-shared", "-fPIC", "-x", "c++", "/dev/null", "-o", str(root / "lib64/libnnopbase.so")], check=True
    )
    _executable(root / "tools/profiler/bin/msprof", MSPROF)
    _executable(root / "bin/npu-smi", NPU_SMI)
    _executable(root / "bin/msopgen", MSOPGEN)
    _executable(root / "bin/fake_build.sh", BUILD_SH)
    return root


def make_project(src: Path, dest: Path) -> Path:
    """A copy of an example operator project with the fake build.sh."""
    import shutil

    shutil.copytree(src, dest)
    _executable(dest / "build.sh", BUILD_SH)
    return dest
