// tilewise host emulation of the mki framework: PlatformInfo, the chip a tiling plans for. Filled by the runner
// (tw_host/mki_adapter.h) from the run's chip: vector and cube core counts, UB and L1 bytes, SoC name.
#pragma once
#include <cstdint>
#include <string>

namespace Mki {

enum class CoreType { CORE_TYPE_VECTOR, CORE_TYPE_CUBE, CORE_TYPE_AICORE };
enum class PlatformType { ASCEND_310P, ASCEND_910A, ASCEND_910B, ASCEND_310B, ASCEND_910_95, PLATFORM_INVALID };

class PlatformInfo {
public:
    static PlatformInfo& Instance() {
        static PlatformInfo info;
        return info;
    }
    void Set(uint32_t vectorCores, uint32_t cubeCores, uint64_t ubBytes, uint64_t l1Bytes, const std::string& soc) {
        vectorCores_ = vectorCores;
        cubeCores_ = cubeCores;
        ubBytes_ = ubBytes;
        l1Bytes_ = l1Bytes;
        soc_ = soc;
    }
    // A separated (A2/A3) chip counts vector and cube cores apart; the AI core count is the cube count there.
    uint32_t GetCoreNum(CoreType type) const { return type == CoreType::CORE_TYPE_VECTOR ? vectorCores_ : cubeCores_; }
    uint64_t GetUbSize() const { return ubBytes_; }
    uint64_t GetL1Size() const { return l1Bytes_; }
    uint64_t GetL0ASize() const { return 64 * 1024; }
    uint64_t GetL0BSize() const { return 64 * 1024; }
    uint64_t GetL0CSize() const { return 128 * 1024; }
    std::string GetPlatformName() const { return soc_; }
    // Ascend910B* and the Ascend910_93 (A3) family run the A2 kernels; 310P, 310B and 910A are their own.
    PlatformType GetPlatformType() const {
        if (soc_.rfind("Ascend910B", 0) == 0 || soc_.rfind("Ascend910_93", 0) == 0) return PlatformType::ASCEND_910B;
        if (soc_.rfind("Ascend310P", 0) == 0) return PlatformType::ASCEND_310P;
        if (soc_.rfind("Ascend310B", 0) == 0) return PlatformType::ASCEND_310B;
        if (soc_.rfind("Ascend910_95", 0) == 0) return PlatformType::ASCEND_910_95;
        if (soc_.rfind("Ascend910", 0) == 0) return PlatformType::ASCEND_910A;
        return PlatformType::PLATFORM_INVALID;
    }

private:
    uint32_t vectorCores_ = 48, cubeCores_ = 24;
    uint64_t ubBytes_ = 196608, l1Bytes_ = 524288;
    std::string soc_ = "Ascend910B2";
};

}  // namespace Mki
