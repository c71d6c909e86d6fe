"""The lint rules, one module each. Add a rule by writing its module and listing its class here."""

from __future__ import annotations

from analysis.rules.aligned_datacopypad import AlignedDataCopyPad
from analysis.rules.base import Rule, RuleContext
from analysis.rules.low_block_dim import LowBlockDim
from analysis.rules.missing_aicore import MissingAicore
from analysis.rules.pipe_all_in_loop import PipeAllInLoop
from analysis.rules.scalar_loop import ScalarLoop
from analysis.rules.single_buffer import SingleBuffer
from analysis.rules.small_copy import SmallCopy
from analysis.rules.syncall_without_workspace import SyncAllWithoutWorkspace
from analysis.rules.tiling_field_mismatch import TilingFieldMismatch
from analysis.rules.ub_overflow import UbOverflow
from analysis.rules.unaligned_datacopy import UnalignedDataCopy
from analysis.rules.unpaired_flag import UnpairedFlag

ALL_RULES: list[Rule] = [
    PipeAllInLoop(),
    SingleBuffer(),
    AlignedDataCopyPad(),
    ScalarLoop(),
    SmallCopy(),
    LowBlockDim(),
    UbOverflow(),
    TilingFieldMismatch(),
    MissingAicore(),
    UnalignedDataCopy(),
    UnpairedFlag(),
    SyncAllWithoutWorkspace(),
]
RULES_BY_ID = {r.id: r for r in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_ID", "Rule", "RuleContext"]
