// tilewise host emulation: fe::PlatFormInfos, the opaque platform description TilingContext::GetPlatformInfo()
// hands to platform_ascendc::PlatformAscendC. Here it is a plain record the runner fills from its chip model, with
// the string-keyed queries (GetPlatformResWithLock) that tiling code also makes answered from the same figures.
#pragma once
#include <cstdint>
#include <string>

namespace fe {

// Same numbering as platform_ascendc::CoreMemType: tiling code converts one into the other with a static_cast.
enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

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

    // The platform configuration's (label, key) entries, as strings. Only entries the emulator knows are answered;
    // an unknown one returns false with `val` untouched, as a missing entry does on a real toolkit.
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const {
        std::string v;
        if (label == "version") {
            if (key == "SoC_version") v = soc_version;
            else if (key == "Short_SoC_version") v = short_soc_version();
            else if (key == "NpuArch") v = npu_arch();
        } else if (label == "SoCInfo") {
            if (key == "ai_core_cnt" || key == "cube_core_cnt") v = std::to_string(aic_num);
            else if (key == "vector_core_cnt") v = std::to_string(aiv_num);
            else if (key == "core_type_list") v = "CubeCore,VectorCore";
            else if (key == "l2_size") v = std::to_string(l2_bytes);
            else if (key == "memory_size") v = std::to_string(hbm_bytes);
        } else if (label == "AICoreSpec") {
            if (key == "ub_size") v = std::to_string(ub_bytes);
            else if (key == "l1_size") v = std::to_string(l1_bytes);
            else if (key == "l0_a_size") v = std::to_string(l0a_bytes);
            else if (key == "l0_b_size") v = std::to_string(l0b_bytes);
            else if (key == "l0_c_size") v = std::to_string(l0c_bytes);
        }
        if (v.empty()) {
            return false;
        }
        val = v;
        return true;
    }
    bool GetPlatformResWithLock(const std::string& label, const std::string& key, std::string& val) const {
        return GetPlatformRes(label, key, val);
    }

    void GetLocalMemSize(const LocalMemType& type, uint64_t& size) const {
        switch (type) {
            case LocalMemType::UB: size = ub_bytes; break;
            case LocalMemType::L1: size = l1_bytes; break;
            case LocalMemType::L0_A: size = l0a_bytes; break;
            case LocalMemType::L0_B: size = l0b_bytes; break;
            case LocalMemType::L0_C: size = l0c_bytes; break;
            case LocalMemType::L2: size = l2_bytes; break;
            case LocalMemType::HBM: size = hbm_bytes; break;
            default: size = 0; break;
        }
    }
    uint32_t GetCoreNum() const { return aiv_num; }
    void SetCoreNumByCoreType(const std::string&) {}

    // "Ascend910B2" -> "Ascend910B", "Ascend910_9392" -> "Ascend910_93"; the family the short version names.
    std::string short_soc_version() const {
        if (soc_version.rfind("Ascend910B", 0) == 0) return "Ascend910B";
        if (soc_version.rfind("Ascend910_93", 0) == 0) return "Ascend910_93";
        if (soc_version.rfind("Ascend310P", 0) == 0) return "Ascend310P";
        return soc_version;
    }
    // The NPU architecture number (the device compiler's __NPU_ARCH__): 2201 for the Atlas A2 / A3 AI core.
    std::string npu_arch() const {
        const std::string s = short_soc_version();
        if (s == "Ascend910B" || s == "Ascend910_93") return "2201";
        if (s == "Ascend310P") return "2002";
        return "";
    }
};

// The platform of the operator being tiled, for code that asks the process-wide PlatformInfoManager instead of its
// TilingContext. The runner sets it before it calls the tiling function.
inline PlatFormInfos& current_platform() {
    static PlatFormInfos info;
    return info;
}

}  // namespace fe
