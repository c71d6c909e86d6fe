// tilewise host emulation: one attribute value as the runner and the OpDef builder exchange it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tw_host {

struct AttrValue {
    enum Kind { FLOAT, INT, BOOL, STR, LIST_INT, LIST_FLOAT, NONE, LIST_BOOL } kind = NONE;
    double f = 0.0;
    int64_t i = 0;
    bool b = false;
    std::string s;
    std::vector<int64_t> li;
    std::vector<float> lf;
    std::vector<bool> lb;

    static AttrValue Float(double v) { AttrValue a; a.kind = FLOAT; a.f = v; return a; }
    static AttrValue Int(int64_t v) { AttrValue a; a.kind = INT; a.i = v; return a; }
    static AttrValue Bool(bool v) { AttrValue a; a.kind = BOOL; a.b = v; return a; }
    static AttrValue Str(std::string v) { AttrValue a; a.kind = STR; a.s = std::move(v); return a; }
    static AttrValue ListInt(std::vector<int64_t> v) { AttrValue a; a.kind = LIST_INT; a.li = std::move(v); return a; }
    static AttrValue ListFloat(std::vector<float> v) { AttrValue a; a.kind = LIST_FLOAT; a.lf = std::move(v); return a; }
    static AttrValue ListBool(std::vector<bool> v) { AttrValue a; a.kind = LIST_BOOL; a.lb = std::move(v); return a; }
};

}  // namespace tw_host
