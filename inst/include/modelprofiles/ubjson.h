// A reader of Universal Binary JSON (UBJSON, as xgboost writes its models:
// xgb.save.raw(raw_format = "ubj")) into a small document tree. Numbers are
// big-endian; typed arrays ([$<type>#<count>) of numbers are kept as
// doubles (float32 values exactly). R-free.
#ifndef MODELPROFILES_UBJSON_H
#define MODELPROFILES_UBJSON_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace mp {
namespace ubj {

struct Value {
  enum Kind { NUL, BOOL, NUM, STR, ARR, OBJ };
  Kind kind = NUL;
  double num = 0;
  std::string str;
  // An array: its numbers (typed numeric arrays, and arrays of numbers),
  // else its items.
  std::vector<double> nums;
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> fields;

  // The field `key` of an object, or nullptr.
  const Value* get(const char* key) const {
    if (kind != OBJ) return nullptr;
    for (const auto& f : fields)
      if (f.first == key) return &f.second;
    return nullptr;
  }
  // The numbers of an array (empty otherwise).
  const std::vector<double>& numbers() const { return nums; }
  std::size_t size() const { return kind == ARR ? nums.size() + items.size() : 0; }
};

class Reader {
 public:
  Reader(const unsigned char* data, std::size_t n) : p_(data), end_(data + n) {}

  // The document, or false (ok() false) when the bytes are not UBJSON.
  bool read(Value& out) {
    ok_ = true;
    if (!value(next(), out, 0)) return false;
    return ok_;
  }

 private:
  const unsigned char* p_;
  const unsigned char* end_;
  bool ok_ = true;

  bool fail() {
    ok_ = false;
    return false;
  }
  int next() {
    while (p_ < end_ && *p_ == 'N') ++p_;  // no-op markers
    if (p_ >= end_) return -1;
    return *p_++;
  }
  bool bytes(std::size_t k, unsigned char* buf) {
    if (static_cast<std::size_t>(end_ - p_) < k) return fail();
    std::memcpy(buf, p_, k);
    p_ += k;
    return true;
  }
  // A big-endian unsigned integer of k bytes.
  bool be(std::size_t k, std::uint64_t& v) {
    unsigned char b[8];
    if (!bytes(k, b)) return false;
    v = 0;
    for (std::size_t i = 0; i < k; ++i) v = (v << 8) | b[i];
    return true;
  }
  static bool numeric(int t) {
    return t == 'i' || t == 'U' || t == 'I' || t == 'l' || t == 'L' || t == 'd' || t == 'D';
  }
  // A number of type t (numeric(t)).
  bool number(int t, double& x) {
    std::uint64_t v;
    switch (t) {
      case 'i':
        if (!be(1, v)) return false;
        x = static_cast<std::int8_t>(v);
        return true;
      case 'U':
        if (!be(1, v)) return false;
        x = static_cast<double>(v);
        return true;
      case 'I':
        if (!be(2, v)) return false;
        x = static_cast<std::int16_t>(v);
        return true;
      case 'l':
        if (!be(4, v)) return false;
        x = static_cast<std::int32_t>(v);
        return true;
      case 'L':
        if (!be(8, v)) return false;
        x = static_cast<double>(static_cast<std::int64_t>(v));
        return true;
      case 'd': {
        if (!be(4, v)) return false;
        const std::uint32_t u = static_cast<std::uint32_t>(v);
        float f;
        std::memcpy(&f, &u, 4);
        x = f;
        return true;
      }
      case 'D': {
        if (!be(8, v)) return false;
        double d;
        std::memcpy(&d, &v, 8);
        x = d;
        return true;
      }
    }
    return fail();
  }
  // A non-negative count or length (an integer with its marker).
  bool count(std::size_t& n) {
    const int t = next();
    double x;
    if (t == 'd' || t == 'D' || !numeric(t) || !number(t, x)) return fail();
    if (x < 0 || x > static_cast<double>(end_ - p_) * 8 + 64) return fail();
    n = static_cast<std::size_t>(x);
    return true;
  }
  bool string(std::string& s) {
    std::size_t n;
    if (!count(n) || static_cast<std::size_t>(end_ - p_) < n) return fail();
    s.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  // A value of marker t (already read).
  bool value(int t, Value& out, int depth) {
    if (depth > 64) return fail();
    if (numeric(t)) {
      out.kind = Value::NUM;
      return number(t, out.num);
    }
    switch (t) {
      case 'Z':
        out.kind = Value::NUL;
        return true;
      case 'T':
      case 'F':
        out.kind = Value::BOOL;
        out.num = t == 'T';
        return true;
      case 'C': {
        unsigned char c;
        if (!bytes(1, &c)) return false;
        out.kind = Value::STR;
        out.str.assign(1, static_cast<char>(c));
        return true;
      }
      case 'S':
      case 'H':
        out.kind = Value::STR;
        return string(out.str);
      case '[':
        return array(out, depth);
      case '{':
        return object(out, depth);
    }
    return fail();
  }
  // The optional $type and #count of a container.
  bool header(int& type, bool& counted, std::size_t& n) {
    type = 0;
    counted = false;
    if (p_ < end_ && *p_ == '$') {
      ++p_;
      if (p_ >= end_) return fail();
      type = *p_++;
      if (p_ >= end_ || *p_ != '#') return fail();  // a type needs a count
    }
    if (p_ < end_ && *p_ == '#') {
      ++p_;
      counted = true;
      if (!count(n)) return false;
    }
    return true;
  }
  bool array(Value& out, int depth) {
    out.kind = Value::ARR;
    int type;
    bool counted;
    std::size_t n = 0;
    if (!header(type, counted, n)) return false;
    if (type != 0 && numeric(type)) {
      out.nums.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        if (!number(type, out.nums[i])) return false;
      return true;
    }
    for (std::size_t i = 0; !counted || i < n; ++i) {
      const int t = type != 0 ? type : next();
      if (!counted && t == ']') return true;
      if (t < 0) return fail();
      Value v;
      if (!value(t, v, depth + 1)) return false;
      if (v.kind == Value::NUM && out.items.empty()) {
        out.nums.push_back(v.num);
      } else {
        // Mixed content: keep items (numbers so far become items).
        for (double x : out.nums) {
          Value w;
          w.kind = Value::NUM;
          w.num = x;
          out.items.push_back(w);
        }
        out.nums.clear();
        out.items.push_back(std::move(v));
      }
    }
    return true;
  }
  bool object(Value& out, int depth) {
    out.kind = Value::OBJ;
    int type;
    bool counted;
    std::size_t n = 0;
    if (!header(type, counted, n)) return false;
    for (std::size_t i = 0; !counted || i < n; ++i) {
      if (!counted) {
        while (p_ < end_ && *p_ == 'N') ++p_;
        if (p_ < end_ && *p_ == '}') {
          ++p_;
          return true;
        }
      }
      std::string key;
      if (!string(key)) return false;
      const int t = type != 0 ? type : next();
      if (t < 0) return fail();
      Value v;
      if (!value(t, v, depth + 1)) return false;
      out.fields.emplace_back(std::move(key), std::move(v));
    }
    return true;
  }
};

}  // namespace ubj
}  // namespace mp

#endif
