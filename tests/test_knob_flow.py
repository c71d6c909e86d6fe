"""A knob's role is what its value does (analysis/knob_flow.py), not what it is called, and the search space takes
that role: a constant passed to SetBlockDim is a core count whatever its name, one that divides the tiles a divisor,
one that sets an InitBuffer's count a buffer count; and each knob's effect on the UB has the sign of its data flow.
The operators are written here, with names chosen to mislead a reader that goes by them."""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import replace_once, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.knob_flow import knob_flows
from tilewise.analysis.knobs import role_of
from tilewise.analysis.operator import Operator, load_operator
from tilewise.search.domains import BUFFER_COUNTS, ladder
from tilewise.search.space import build_space

TILING = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(SumTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, totalLen);
    TILING_DATA_FIELD_DEF(uint32_t, cores);
    TILING_DATA_FIELD_DEF(uint32_t, pieces);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Sum, SumTilingData)
}
"""

# TILE_NUM is the core count, CORE_NUM the number of pieces each core's share is cut into.
HOST = """\
#include "scale_tiling.h"
#include "register/op_def_registry.h"

constexpr uint32_t TILE_NUM = 8;
const uint32_t CORE_NUM = 4;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    SumTilingData t;
    uint32_t n = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    uint32_t used = TILE_NUM;
    context->SetBlockDim(used);
    t.set_cores(used);
    t.set_totalLen(n);
    t.set_pieces(CORE_NUM);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}

namespace ops {
class Sum : public OpDef {
public:
    explicit Sum(const char* name) : OpDef(name)
    {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Sum);
}
"""

# TILE_LEN is a buffer count; BLOCK_NUM multiplies what a piece holds (a tile length); SPLIT is the queue depth.
KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

#define TILE_LEN 2
constexpr uint32_t BLOCK_NUM = 1;
constexpr int32_t SPLIT = 2;

class SumKernel {
public:
    __aicore__ inline SumKernel() {}
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t totalLen, uint32_t cores, uint32_t pieces)
    {
        share = totalLen / cores;
        piece = share / pieces / TILE_LEN * BLOCK_NUM;
        steps = pieces * TILE_LEN;
        aGm.SetGlobalBuffer((__gm__ half*)a + share * GetBlockIdx(), share);
        bGm.SetGlobalBuffer((__gm__ half*)b + share * GetBlockIdx(), share);
        cGm.SetGlobalBuffer((__gm__ half*)c + share * GetBlockIdx(), share);
        pipe.InitBuffer(qa, TILE_LEN, piece * sizeof(half));
        pipe.InitBuffer(qb, TILE_LEN, piece * sizeof(half));
        pipe.InitBuffer(qc, TILE_LEN, piece * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < steps; i++) {
            LocalTensor<half> x = qa.AllocTensor<half>();
            LocalTensor<half> y = qb.AllocTensor<half>();
            DataCopy(x, aGm[i * piece], piece);
            DataCopy(y, bGm[i * piece], piece);
            qa.EnQue(x);
            qb.EnQue(y);
            x = qa.DeQue<half>();
            y = qb.DeQue<half>();
            LocalTensor<half> z = qc.AllocTensor<half>();
            Add(z, x, y, piece);
            qc.EnQue(z);
            qa.FreeTensor(x);
            qb.FreeTensor(y);
            z = qc.DeQue<half>();
            DataCopy(cGm[i * piece], z, piece);
            qc.FreeTensor(z);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, SPLIT> qa, qb;
    TQue<QuePosition::VECOUT, SPLIT> qc;
    GlobalTensor<half> aGm, bGm, cGm;
    uint32_t share, piece, steps;
};

extern "C" __global__ __aicore__ void sum(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SumKernel op;
    op.Init(a, b, c, t.totalLen, t.cores, t.pieces);
    op.Process();
}
"""

MANIFEST = """\
[operator]
name = "Sum"

[[cases]]
name = "c"
[cases.inputs.a]
shape = [48, 4096]
dtype = "float16"
[cases.inputs.b]
shape = [48, 4096]
dtype = "float16"
"""


def sum_op(tmp_path: Path, host: str = HOST, kernel: str = KERNEL) -> Operator:
    return load_operator(write_operator(tmp_path / "sum", kernel=kernel, host=host, tiling_h=TILING, manifest=MANIFEST))


@pytest.fixture
def op(tmp_path: Path) -> Operator:
    return sum_op(tmp_path)


def test_the_names_would_mislead(op):
    """The fixture is what it claims: a reader going by the names gets every role here wrong."""
    assert [role_of(n) for n in ("TILE_NUM", "CORE_NUM", "TILE_LEN", "BLOCK_NUM")] == [
        "tile",
        "block_dim",
        "tile",
        "block_dim",
    ]


def test_roles_come_from_where_the_values_go(op):
    flows = knob_flows(op.model, op.sources)
    roles = {name: flows[name].role for name in ("TILE_NUM", "CORE_NUM", "TILE_LEN", "BLOCK_NUM", "SPLIT")}
    assert roles == {
        "TILE_NUM": "block_dim",  # SetBlockDim(used), used = TILE_NUM
        "CORE_NUM": "divisor",  # share / pieces: the pieces a core's share is cut into
        "TILE_LEN": "buffer_num",  # InitBuffer's count (it also divides the piece)
        "BLOCK_NUM": "tile",  # a factor of the piece's length
        "SPLIT": "buffer_num",  # the queues' depth
    }


def test_each_knobs_effect_on_the_ub_has_its_data_flows_sign(op):
    flows = knob_flows(op.model, op.sources)
    # more cores and more pieces shrink every buffer; a larger factor grows them; TILE_LEN buffers of a piece it
    # divides leaves the UB as it is; the queue depth sizes no InitBuffer
    assert {n: flows[n].ub_effect for n in ("TILE_NUM", "CORE_NUM", "BLOCK_NUM", "TILE_LEN", "SPLIT")} == {
        "TILE_NUM": -1,
        "CORE_NUM": -1,
        "BLOCK_NUM": 1,
        "TILE_LEN": 0,
        "SPLIT": 0,
    }
    sites = flows["CORE_NUM"].ub_sites
    assert len(sites) == 3 and all(signs == {-1} for signs in sites.values())
    assert all(signs == {-1, 1} for signs in flows["TILE_LEN"].ub_sites.values())


def test_a_compound_assignment_divides_by_its_operand(tmp_path):
    kernel = replace_once(
        KERNEL, "piece = share / pieces / TILE_LEN * BLOCK_NUM;", "piece = share * BLOCK_NUM;\n        piece /= pieces;"
    )
    flows = knob_flows(sum_op(tmp_path, kernel=kernel).model, sum_op(tmp_path, kernel=kernel).sources)
    assert flows["CORE_NUM"].role == "divisor" and flows["BLOCK_NUM"].role == "tile"


def test_the_space_searches_each_knob_over_its_roles_domain(op):
    chip = load_chip("910B2")
    space = {k.name: k for k in build_space(op, chip).knobs}
    cores = space["TILE_NUM"]
    assert cores.role == "block_dim" and min(cores.domain) == 1 and max(cores.domain) == chip.vector_cores
    # 48 x 4096 halves split evenly over 3, 6, ... cores too
    assert {3, 6, 12, 24, 48} <= set(cores.domain)
    pieces = space["CORE_NUM"]
    assert pieces.role == "divisor" and pieces.domain == ladder(1, 4 * 64) and pieces.ub_effect == -1
    assert space["TILE_LEN"].domain == list(BUFFER_COUNTS) and space["TILE_LEN"].role == "buffer_num"
    assert space["SPLIT"].domain == list(BUFFER_COUNTS)
    assert space["BLOCK_NUM"].role == "tile" and space["BLOCK_NUM"].ub_effect == 1
    assert space["BLOCK_NUM"].domain == ladder(1, 64)


def test_a_kernel_share_cut_by_get_block_num_is_sized_by_the_hosts_core_count(tmp_path):
    """`totalLen / GetBlockNum()` divides by the launch's block count, which is the host's SetBlockDim: the core
    count reaches the kernel's buffers with the sign of a divisor, though no tiling field carries it."""
    kernel = replace_once(KERNEL, "share = totalLen / cores;", "share = totalLen / GetBlockNum();")
    op = sum_op(tmp_path, kernel=kernel)
    flow = knob_flows(op.model, op.sources)["TILE_NUM"]
    assert flow.role == "block_dim" and flow.ub_effect == -1
    assert len(flow.ub_sites) == 3 and all(signs == {-1} for signs in flow.ub_sites.values())
    # GetBlockIdx() is no count: the host's core count does not reach the buffers through it
    unrelated = replace_once(KERNEL, "share = totalLen / cores;", "share = totalLen / (GetBlockIdx() + 1);")
    op = sum_op(tmp_path / "idx", kernel=unrelated)
    assert knob_flows(op.model, op.sources)["TILE_NUM"].ub_effect == 0
