"""Every queue and buffer declaration form, and every `InitBuffer` form, that public AscendC code uses lands in the
operator model (issue 12). The kernel below is written for this test; each declaration is one form."""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import write_operator

from tilewise.analysis.operator import load_operator

FORMS_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
using InQue = TQue<QuePosition::VECIN, 3>;
typedef AscendC::TQue<AscendC::QuePosition::VECOUT, 1> OutQue;

template <typename T, int32_t BUF_NUM>
class KernelForms {
public:
    static constexpr int32_t MEMBER_NUM = 4;
    __aicore__ inline KernelForms() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t tileLength, TPipe* pipePtr)
    {
        this->tileLength = tileLength;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipePtr->InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        GetTPipePtr()->InitBuffer(outQueueZ, 1, 256);
        this->pipe.InitBuffer(bindQueue, 2, 512);
        pipe.InitBuffer(tmpBuf, 1024);
        this->pipe.InitBuffer(plainBuf, 2048);
        for (int32_t i = 0; i < 3; i++) {
            pipe.InitBuffer(inQueues[i], 2, 128);
        }
        pipe.InitBuffer(this->aliasQueue, 1, 64);
    }
    __aicore__ inline void Local()
    {
        TQue<QuePosition::VECOUT, 1> localQueue;
        TBuf<TPosition::VECCALC> localBuf;
        pipe.InitBuffer(localQueue, 1, 32);
        pipe.InitBuffer(localBuf, 96);
    }

private:
    TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, 1> outQueueZ;
    TQue<TPosition::VECIN, 2> posQueue;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> bindQueue;
    AscendC::TQueBind<AscendC::TPosition::VECIN, AscendC::TPosition::VECOUT> bindDefault;
    TBuf<TPosition::VECCALC> tmpBuf;
    TBuf<> plainBuf;
    TQue<QuePosition::VECIN, 2> inQueues[3];
    TQue<QuePosition::VECIN, BUF_NUM> templQueue;
    TQue<QuePosition::VECIN, MEMBER_NUM> memberQueue;
    InQue aliasQueue;
    OutQue typedefQueue;
    uint32_t tileLength;
};

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelForms<half, 2> op;
    TPipe pipe;
    op.Init(x, y, tilingData.tileLength, &pipe);
}
"""

# name: (kind, position, depth, depth expression, owner, count)
QUEUES = {
    "inQueueX": ("TQue", "VECIN", 2, "BUFFER_NUM", "KernelForms", None),
    "inQueueY": ("TQue", "VECIN", 2, "BUFFER_NUM", "KernelForms", None),
    "outQueueZ": ("TQue", "VECOUT", 1, "1", "KernelForms", None),
    "posQueue": ("TQue", "VECIN", 2, "2", "KernelForms", None),
    "bindQueue": ("TQueBind", "VECIN->VECOUT", 1, "1", "KernelForms", None),
    "bindDefault": ("TQueBind", "VECIN->VECOUT", 1, "", "KernelForms", None),
    "tmpBuf": ("TBuf", "VECCALC", None, None, "KernelForms", None),
    "plainBuf": ("TBuf", "VECCALC", None, None, "KernelForms", None),
    "inQueues": ("TQue", "VECIN", 2, "2", "KernelForms", 3),
    "templQueue": ("TQue", "VECIN", None, "BUF_NUM", "KernelForms", None),
    "memberQueue": ("TQue", "VECIN", 4, "MEMBER_NUM", "KernelForms", None),
    "aliasQueue": ("TQue", "VECIN", 3, "3", "KernelForms", None),
    "typedefQueue": ("TQue", "VECOUT", 1, "1", "KernelForms", None),
    "localQueue": ("TQue", "VECOUT", 1, "1", "KernelForms", None),
    "localBuf": ("TBuf", "VECCALC", None, None, "KernelForms", None),
}

# queue: (num, size text, bytes)
INIT_BUFFERS = {
    "inQueueX": ("BUFFER_NUM", "tileLength * sizeof(T)"),
    "inQueueY": ("BUFFER_NUM", "tileLength * sizeof(T)"),
    "outQueueZ": ("1", "256"),
    "bindQueue": ("2", "512"),
    "tmpBuf": ("1", "1024"),
    "plainBuf": ("1", "2048"),
    "inQueues": ("2", "128"),
    "aliasQueue": ("1", "64"),
    "localQueue": ("1", "32"),
    "localBuf": ("1", "96"),
}


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory):
    root = write_operator(Path(tmp_path_factory.mktemp("forms")) / "scale", kernel=FORMS_KERNEL)
    op = load_operator(root)
    assert op.problems == []
    assert op.model.syntax_errors == []
    return op.model


def test_every_queue_declaration_form_is_in_the_model(model):
    found = {q.name: (q.kind, q.position, q.depth, q.depth_expr, q.owner, q.count) for q in model.queues}
    assert found == QUEUES
    lines = FORMS_KERNEL.splitlines()
    for q in model.queues:
        assert q.name in lines[q.loc.line - 1]


def test_pipes_are_found_as_members_locals_and_parameters(model):
    assert set(model.pipes) >= {"pipe"}


def test_every_init_buffer_form_is_in_the_model(model):
    found = {b.queue: (b.num.text, b.size.text) for b in model.init_buffers}
    assert found == INIT_BUFFERS
    sizes = {b.queue: b.bytes for b in model.init_buffers}
    assert sizes["outQueueZ"] == 256 and sizes["bindQueue"] == 1024 and sizes["inQueues"] == 256
    assert sizes["tmpBuf"] == 1024
