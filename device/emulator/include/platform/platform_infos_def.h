// tilewise host emulation: fe::PlatFormInfos, the opaque platform description TilingContext::GetPlatformInfo()
// hands to platform_ascendc::PlatformAscendC. Here it is a plain record the runner fills from its chip model.
#pragma once
#include <cstdint>
#include <string>

namespace fe {

class PlatFormInfos {
public:
    // Defaults: Ascend 910B2 ("Atlas A2"): 24 cube cores, 48 vector cores, 192 KiB UB, 512 KiB L1.
    std::string soc_version = "Ascend910B2";
    uint32_t aic_num = 24;
    uint32_t aiv_num = 48;
    uint64_t ub_bytes = 196608;
    uint64_t l1_bytes = 524288;
    uint64_t l0a_bytes = 65536;
    uint64_t l0b_bytes = 65536;
    uint64_t l0c_bytes = 131072;
    uint64_t l2_bytes = 201326592;
    uint64_t hbm_bytes = 68719476736ULL;
};

}  // namespace fe
