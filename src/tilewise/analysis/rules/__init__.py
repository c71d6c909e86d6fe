"""The lint rules, one module each. Add a rule by writing its module and listing its class here."""

from __future__ import annotations

from tilewise.analysis.rules.aligned_datacopypad import AlignedDataCopyPad
from tilewise.analysis.rules.base import Rule, RuleContext
from tilewise.analysis.rules.low_block_dim import LowBlockDim
from tilewise.analysis.rules.missing_aicore import MissingAicore
from tilewise.analysis.rules.pipe_all_in_loop import PipeAllInLoop
from tilewise.analysis.rules.scalar_loop import ScalarLoop
from tilewise.analysis.rules.single_buffer import SingleBuffer
from tilewise.analysis.rules.small_copy import SmallCopy
from tilewise.analysis.rules.syncall_without_workspace import SyncAllWithoutWorkspace
from tilewise.analysis.rules.tiling_field_mismatch import TilingFieldMismatch
from tilewise.analysis.rules.ub_overflow import UbOverflow
from tilewise.analysis.rules.unaligned_datacopy import UnalignedDataCopy
from tilewise.analysis.rules.unpaired_flag import UnpairedFlag

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
