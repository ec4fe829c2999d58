#include "step_ops/Shape.h"

#include "util/Error.h"

namespace steprdu::step {

std::string Dim::str() const {
    std::string s = size.str();
    if (kind == DimKind::Ragged) s += "~";
    return s;
}

Expr Shape::totalElements() const {
    // A ragged dimension's symbol counts its elements across all enclosing dimensions, so it absorbs them.
    Expr e(1);
    for (auto it = dims_.rbegin(); it != dims_.rend(); ++it) {
        e = e * it->size;
        if (it->kind == DimKind::Ragged) break;
    }
    return e;
}

Shape Shape::inner(int r) const {
    return Shape(std::vector<Dim>(dims_.end() - r, dims_.end()));
}

Shape Shape::outer(int r) const {
    return Shape(std::vector<Dim>(dims_.begin(), dims_.end() - r));
}

Shape Shape::concat(const Shape& in) const {
    auto d = dims_;
    d.insert(d.end(), in.dims_.begin(), in.dims_.end());
    return Shape(d);
}

bool Shape::hasRagged() const {
    for (auto& d : dims_)
        if (d.kind == DimKind::Ragged) return true;
    return false;
}

std::string Shape::str() const {
    std::string s = "[";
    for (std::size_t i = 0; i < dims_.size(); ++i)
        s += (i ? ", " : "") + dims_[i].str();
    return s + "]";
}

nlohmann::json Shape::toJson() const {
    nlohmann::json j = nlohmann::json::array();
    const char* kinds[] = {"static", "dynamic", "ragged"};
    for (auto& d : dims_)
        j.push_back({{"size", d.size.toJson()}, {"kind", kinds[static_cast<int>(d.kind)]}});
    return j;
}

Shape Shape::fromJson(const nlohmann::json& j) {
    if (!j.is_array() || j.empty())
        throw BadInput("shape: " + expectedFound("a non-empty list of dimensions", j.dump()));
    std::vector<Dim> dims;
    for (auto& d : j) {
        if (!d.is_object() || !d.contains("size") || !d.contains("kind") || !d["kind"].is_string())
            throw BadInput("shape: dimension " + expectedFound("{size, kind}", d.dump()));
        const std::string k = d["kind"];
        if (k != "static" && k != "dynamic" && k != "ragged")
            throw BadInput("shape: dimension kind " +
                           expectedFound("static, dynamic or ragged", "'" + k + "'"));
        const DimKind kind = k == "ragged"    ? DimKind::Ragged
                             : k == "dynamic" ? DimKind::Dynamic
                                              : DimKind::Static;
        Dim dim(Expr::fromJson(d["size"]), kind);
        if (dim.size.constValue().value_or(0) < 0)
            throw BadInput("shape: dimension size " + expectedFound(">= 0", dim.size.str()));
        dims.push_back(dim);
    }
    return Shape(dims);
}

bool Shape::equals(const Shape& o) const {
    if (dims_.size() != o.dims_.size()) return false;
    for (std::size_t i = 0; i < dims_.size(); ++i)
        if (!dims_[i].size.equals(o.dims_[i].size)) return false;
    return true;
}

} // namespace steprdu::step
