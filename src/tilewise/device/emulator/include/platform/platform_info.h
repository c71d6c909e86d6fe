// tilewise host emulation: platform/platform_info.h, the platform manager some tiling code queries directly instead
// of through its TilingContext. Every query answers with the platform of the operator being tiled (the runner's
// chip model; see fe::current_platform()).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "platform/platform_infos_def.h"

namespace fe {

// Compilation options that go with a platform (SoC version, core type, AI core count, L1 fusion).
class OptionalInfos {
public:
    void Init(const std::string& soc_version, const std::string& core_type, uint32_t ai_core_num,
              const std::string& l1_fusion_flag) {
        soc_version_ = soc_version;
        core_type_ = core_type;
        ai_core_num_ = ai_core_num;
        l1_fusion_flag_ = l1_fusion_flag;
    }
    void SetSocVersion(const std::string& v) { soc_version_ = v; }
    void SetCoreType(const std::string& v) { core_type_ = v; }
    void SetAICoreNum(uint32_t n) { ai_core_num_ = n; }
    void SetL1FusionFlag(const std::string& v) { l1_fusion_flag_ = v; }
    std::string GetSocVersion() const { return soc_version_; }
    std::string GetCoreType() const { return core_type_; }
    uint32_t GetAICoreNum() const { return ai_core_num_; }
    std::string GetL1FusionFlag() const { return l1_fusion_flag_; }

private:
    std::string soc_version_;
    std::string core_type_ = "AiCore";
    uint32_t ai_core_num_ = 0;
    std::string l1_fusion_flag_ = "false";
};

class PlatformInfoManager {
public:
    static PlatformInfoManager& Instance() {
        static PlatformInfoManager m;
        return m;
    }
    static PlatformInfoManager& GeInstance() { return Instance(); }

    uint32_t InitializePlatformInfo() { return 0; }
    uint32_t InitRuntimePlatformInfos(const std::string&) { return 0; }
    uint32_t Finalize() { return 0; }

    // The platform of the operator being tiled, whatever SoC or device is asked for (there is only one). 0: found.
    uint32_t GetPlatformInfoWithOutSocVersion(PlatFormInfos& info, OptionalInfos& opt) {
        info = lookup(current_platform().soc_version);
        opt = optional_;
        if (opt.GetSocVersion().empty()) {
            opt.Init(info.soc_version, "AiCore", info.aic_num, "false");
        }
        return 0;
    }
    uint32_t GetPlatformInfos(const std::string& soc_version, PlatFormInfos& info, OptionalInfos& opt) {
        info = lookup(soc_version);
        opt = optional_;
        return 0;
    }
    uint32_t GetPlatformInfo(const std::string& soc_version, PlatFormInfos& info, OptionalInfos& opt) {
        return GetPlatformInfos(soc_version, info, opt);
    }
    uint32_t GetRuntimePlatformInfosByDevice(uint32_t, PlatFormInfos& info) {
        info = lookup(current_platform().soc_version);
        return 0;
    }
    void SetOptionalCompilationInfo(OptionalInfos& opt) { optional_ = opt; }

    // Entries a test registers by SoC name take precedence over the runner's platform.
    std::map<std::string, PlatFormInfos> platform_info_map_;

private:
    PlatFormInfos lookup(const std::string& soc_version) const {
        auto it = platform_info_map_.find(soc_version);
        return it != platform_info_map_.end() ? it->second : current_platform();
    }
    OptionalInfos optional_;
};

}  // namespace fe
