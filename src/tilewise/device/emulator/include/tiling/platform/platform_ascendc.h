// tilewise host emulation: platform_ascendc::PlatformAscendC, the hardware queries of a tiling function.
// Figures come from the fe::PlatFormInfos the runner built from its chip model (910B2 defaults otherwise).
#pragma once
#include <cstdint>
#include <string>

#include "platform/platform_infos_def.h"
#include "platform/soc_spec.h"  // NpuArch, as CANN's own platform_ascendc.h includes it

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

enum class SocVersion {
    ASCEND910 = 0,
    ASCEND910B,
    ASCEND910_93,
    ASCEND910_95,
    ASCEND310P,
    ASCEND310B,
    ASCEND910_55,
    ASCEND610LITE,
    BS9SX1A,
    BS9SX2A,
    MC61AM21A,
    KIRINX90,
    KIRIN9030,
    RESERVED_VERSION = 99999
};

class PlatformAscendC {
public:
    PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* info) {
        if (info != nullptr) {
            info_ = *info;
        }
    }

    // Separated cube/vector architecture: GetCoreNum is the vector core count.
    uint32_t GetCoreNum() const { return info_.aiv_num; }
    uint32_t GetCoreNumAic() const { return info_.aic_num; }
    uint32_t GetCoreNumAiv() const { return info_.aiv_num; }
    // Stand-alone vector cores (outside AI cores): none on A2/A3.
    uint32_t GetCoreNumVector() const { return 0; }

    void GetCoreMemSize(CoreMemType type, uint64_t& size) const {
        switch (type) {
            case CoreMemType::UB: size = info_.ub_bytes; break;
            case CoreMemType::L1: size = info_.l1_bytes; break;
            case CoreMemType::L0_A: size = info_.l0a_bytes; break;
            case CoreMemType::L0_B: size = info_.l0b_bytes; break;
            case CoreMemType::L0_C: size = info_.l0c_bytes; break;
            case CoreMemType::L2: size = info_.l2_bytes; break;
            case CoreMemType::HBM: size = info_.hbm_bytes; break;
            default: size = 0; break;
        }
    }

    // Bandwidth in bytes per cycle. Rough figures, not measurements: tiling code only compares them.
    void GetCoreMemBw(CoreMemType type, uint64_t& bw) const {
        switch (type) {
            case CoreMemType::HBM: bw = 32; break;
            case CoreMemType::L2: bw = 110; break;
            case CoreMemType::UB: bw = 128; break;
            default: bw = 0; break;
        }
    }

    SocVersion GetSocVersion() const {
        const std::string& s = info_.soc_version;
        if (s.rfind("Ascend910_93", 0) == 0) return SocVersion::ASCEND910_93;
        if (s.rfind("Ascend910_95", 0) == 0) return SocVersion::ASCEND910_95;
        if (s.rfind("Ascend910B", 0) == 0) return SocVersion::ASCEND910B;
        if (s.rfind("Ascend910", 0) == 0) return SocVersion::ASCEND910;
        if (s.rfind("Ascend310P", 0) == 0) return SocVersion::ASCEND310P;
        if (s.rfind("Ascend310B", 0) == 0) return SocVersion::ASCEND310B;
        return SocVersion::RESERVED_VERSION;
    }
    NpuArch GetCurNpuArch() const {
        switch (GetSocVersion()) {
            case SocVersion::ASCEND910B:
            case SocVersion::ASCEND910_93: return NpuArch::DAV_2201;
            case SocVersion::ASCEND910_95: return NpuArch::DAV_3510;
            case SocVersion::ASCEND910: return NpuArch::DAV_1001;
            case SocVersion::ASCEND310P: return NpuArch::DAV_2002;
            case SocVersion::ASCEND310B: return NpuArch::DAV_3002;
            default: return NpuArch::DAV_RESV;
        }
    }

    // Space AscendC library APIs (Matmul, SoftMax, sort...) reserve at the head of the workspace: 16 MiB on A2.
    uint32_t GetLibApiWorkSpaceSize() const { return 16U * 1024U * 1024U; }
    uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }
    uint32_t GetResCubeGroupWorkSpaceSize() const { return 0; }

    // Launch block count for `sliceNum` pieces of work. For a mixed (cube + vector) operator one block is one
    // AIC with its AIVs, so vector slices are grouped aiv/aic to a block; a pure vector or pure cube operator
    // (one count zero) takes one block per slice.
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) {
            return sliceNum;
        }
        const uint32_t ratio = aivCoreNum / aicCoreNum;
        return (sliceNum + ratio - 1) / ratio;
    }
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        return CalcTschBlockDim(sliceNum, aicCoreNum, aivCoreNum);
    }

    // Real toolkits shrink the UB a kernel may use; the emulator has nothing to reserve.
    template <typename T>
    void ReserveLocalMemory(T) {}

private:
    fe::PlatFormInfos info_;
};

// Used by kernel-invocation hosts that have no TilingContext.
class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() {
        static PlatformAscendC instance;
        return &instance;
    }
    static PlatformAscendC* GetInstance(const char* /*customSocVersion*/) { return GetInstance(); }
};

}  // namespace platform_ascendc
