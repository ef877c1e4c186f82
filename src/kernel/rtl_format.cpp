// SPDX-License-Identifier: MIT
// The Windows printf dialect. One parser serves both families: the format is read one unit at a
// time (a narrow format's bytes become units through code page 1252, which is lossless), the
// output is built as UTF-16, and the caller converts it back for a narrow destination.

#include "kernel/rtl_format.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "kernel/code_page.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

// Widths and precisions beyond this are clamped; the ntstrsafe destinations are far smaller and
// DbgPrint output is a log line, so only the memory a hostile format could claim changes.
constexpr int k_max_field = 1 << 20;

enum class size_prefix { none, hh, h, l, ll, w, pointer, i32, i64, long_double };

struct conversion_spec {
    bool left = false;
    bool plus = false;
    bool space = false;
    bool alternate = false;
    bool zero = false;
    int width = 0;
    int precision = -1;
    size_prefix size = size_prefix::none;
};

// Owns a copy of the caller's va_list so that the helpers below can consume arguments in order.
class arguments {
  public:
    explicit arguments(std::va_list args) { va_copy(list_, args); }
    ~arguments() { va_end(list_); }
    arguments(const arguments&) = delete;
    arguments& operator=(const arguments&) = delete;

    int next_int() { return va_arg(list_, int); }
    long long next_long_long() { return va_arg(list_, long long); }
    double next_double() { return va_arg(list_, double); }
    long double next_long_double() { return va_arg(list_, long double); }
    const void* next_pointer() { return va_arg(list_, const void*); }

  private:
    std::va_list list_;
};

char16_t unit_of(char c) {
    return ansi_to_unicode(static_cast<unsigned char>(c));
}
char16_t unit_of(char16_t c) {
    return c;
}

bool is_64_bit(size_prefix size) {
    return size == size_prefix::ll || size == size_prefix::i64 || size == size_prefix::pointer ||
           size == size_prefix::long_double;
}

// The printf flags and field of spec, for handing a number to snprintf.
std::string c_spec(const conversion_spec& spec, std::string_view length, char conversion) {
    std::string text = "%";
    if (spec.left) {
        text += '-';
    }
    if (spec.plus) {
        text += '+';
    }
    if (spec.space) {
        text += ' ';
    }
    if (spec.alternate) {
        text += '#';
    }
    if (spec.zero) {
        text += '0';
    }
    if (spec.width > 0) {
        text += std::to_string(spec.width);
    }
    if (spec.precision >= 0) {
        text += '.';
        text += std::to_string(spec.precision);
    }
    text += length;
    text += conversion;
    return text;
}

template <typename Value>
void append_c_formatted(std::u16string& out, const std::string& c_format, Value value) {
    char small[128];
    // The format is built above from a fixed set of pieces; it is not consumer-controlled text.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    const int needed = std::snprintf(small, sizeof(small), c_format.c_str(), value);
    if (needed < 0) {
        return;
    }
    std::string text;
    if (static_cast<std::size_t>(needed) < sizeof(small)) {
        text.assign(small, static_cast<std::size_t>(needed));
    } else {
        text.resize(static_cast<std::size_t>(needed) + 1);
        std::snprintf(text.data(), text.size(), c_format.c_str(), value);
        text.resize(static_cast<std::size_t>(needed));
    }
#pragma GCC diagnostic pop
    out += ansi_to_unicode(text);
}

// Pads body to the field width: on the right with '-', otherwise on the left with spaces, or with
// zeros when the '0' flag is given (the Microsoft CRT zero-pads strings and characters too).
void append_padded(std::u16string& out, std::u16string_view body, const conversion_spec& spec) {
    const std::size_t width = static_cast<std::size_t>(spec.width);
    const std::size_t fill = width > body.size() ? width - body.size() : 0;
    if (spec.left) {
        out += body;
        out.append(fill, u' ');
    } else {
        out.append(fill, spec.zero ? u'0' : u' ');
        out += body;
    }
}

std::u16string narrow_text(const char* text, int precision) {
    const std::size_t limit =
        precision >= 0 ? static_cast<std::size_t>(precision) : static_cast<std::size_t>(-1);
    return ansi_to_unicode(std::string_view(text, strnlen(text, limit)));
}

std::u16string wide_text(const char16_t* text, int precision) {
    std::size_t n = 0;
    while ((precision < 0 || n < static_cast<std::size_t>(precision)) && text[n] != 0) {
        ++n;
    }
    return std::u16string(text, n);
}

const std::u16string k_null = u"(null)";

class formatter {
  public:
    formatter(bool wide_family, std::va_list args) : wide_family_(wide_family), args_(args) {}

    template <typename Char>
    formatted run(const Char* format) {
        const Char* p = format;
        while (*p != 0) {
            if (unit_of(*p) != u'%') {
                result_.text.push_back(unit_of(*p));
                ++p;
                continue;
            }
            ++p;
            conversion_spec spec;
            p = parse_flags(p, spec);
            p = parse_width(p, spec);
            p = parse_precision(p, spec);
            p = parse_size(p, spec);
            if (*p == 0) {
                break;
            }
            convert(unit_of(*p), spec);
            ++p;
        }
        return std::move(result_);
    }

  private:
    template <typename Char>
    static const Char* parse_flags(const Char* p, conversion_spec& spec) {
        for (;; ++p) {
            switch (unit_of(*p)) {
                case u'-':
                    spec.left = true;
                    break;
                case u'+':
                    spec.plus = true;
                    break;
                case u' ':
                    spec.space = true;
                    break;
                case u'#':
                    spec.alternate = true;
                    break;
                case u'0':
                    spec.zero = true;
                    break;
                default:
                    return p;
            }
        }
    }

    template <typename Char>
    static const Char* parse_number(const Char* p, int& value) {
        long long n = 0;
        while (unit_of(*p) >= u'0' && unit_of(*p) <= u'9') {
            n = std::min<long long>(n * 10 + (unit_of(*p) - u'0'), k_max_field);
            ++p;
        }
        value = static_cast<int>(n);
        return p;
    }

    template <typename Char>
    const Char* parse_width(const Char* p, conversion_spec& spec) {
        if (unit_of(*p) == u'*') {
            // A negative width argument means '-' and its absolute value (C and the CRT agree).
            const long long width = args_.next_int();
            spec.left = spec.left || width < 0;
            spec.width =
                static_cast<int>(std::min<long long>(width < 0 ? -width : width, k_max_field));
            return p + 1;
        }
        return parse_number(p, spec.width);
    }

    template <typename Char>
    const Char* parse_precision(const Char* p, conversion_spec& spec) {
        if (unit_of(*p) != u'.') {
            return p;
        }
        ++p;
        if (unit_of(*p) == u'*') {
            const int precision = args_.next_int();
            spec.precision = precision < 0 ? -1 : std::min(precision, k_max_field);
            return p + 1;
        }
        return parse_number(p, spec.precision);
    }

    template <typename Char>
    static const Char* parse_size(const Char* p, conversion_spec& spec) {
        const auto at = [&](std::size_t i) { return unit_of(p[i]); };
        switch (at(0)) {
            case u'h':
                spec.size = at(1) == u'h' ? size_prefix::hh : size_prefix::h;
                return p + (at(1) == u'h' ? 2 : 1);
            case u'l':
                spec.size = at(1) == u'l' ? size_prefix::ll : size_prefix::l;
                return p + (at(1) == u'l' ? 2 : 1);
            case u'w':
                spec.size = size_prefix::w;
                return p + 1;
            case u'L':
                spec.size = size_prefix::long_double;
                return p + 1;
            case u'j':
            case u'z':
            case u't':
                spec.size = size_prefix::pointer;
                return p + 1;
            case u'I':
                if (at(1) == u'6' && at(2) == u'4') {
                    spec.size = size_prefix::i64;
                    return p + 3;
                }
                if (at(1) == u'3' && at(2) == u'2') {
                    spec.size = size_prefix::i32;
                    return p + 3;
                }
                spec.size = size_prefix::pointer;
                return p + 1;
            default:
                return p;
        }
    }

    // Whether a %c/%s-like conversion reads a wide argument: an explicit h is narrow and l/w
    // wide; otherwise the lower-case letter takes the family's own width and the upper-case
    // letter the other one (Microsoft's rule for printf versus wprintf).
    bool reads_wide(bool upper_case, size_prefix size) const {
        if (size == size_prefix::h) {
            return false;
        }
        if (size == size_prefix::l || size == size_prefix::w) {
            return true;
        }
        return upper_case != wide_family_;
    }

    void note_wide() {
        if (!wide_family_) {
            result_.unicode_conversion = true;
        }
    }

    void convert(char16_t conversion, const conversion_spec& spec) {
        switch (conversion) {
            case u'd':
            case u'i':
                convert_signed(spec);
                return;
            case u'u':
            case u'o':
            case u'x':
            case u'X':
                convert_unsigned(static_cast<char>(conversion), spec);
                return;
            case u'c':
            case u'C':
                convert_char(conversion == u'C', spec);
                return;
            case u's':
            case u'S':
                convert_string(conversion == u'S', spec);
                return;
            case u'Z':
                convert_counted_string(spec);
                return;
            case u'p':
                convert_pointer(spec);
                return;
            case u'n':
                // The CRT disables %n by default; the pointer is consumed and nothing is written.
                static_cast<void>(args_.next_pointer());
                return;
            case u'e':
            case u'E':
            case u'f':
            case u'F':
            case u'g':
            case u'G':
            case u'a':
            case u'A':
                convert_floating(static_cast<char>(conversion), spec);
                return;
            default:
                // "%%" and any unknown conversion character print that character.
                result_.text.push_back(conversion);
                return;
        }
    }

    void convert_signed(const conversion_spec& spec) {
        long long value = 0;
        if (is_64_bit(spec.size)) {
            value = args_.next_long_long();
        } else {
            const int raw = args_.next_int();
            value = spec.size == size_prefix::hh  ? static_cast<signed char>(raw)
                    : spec.size == size_prefix::h ? static_cast<short>(raw)
                                                  : raw;
        }
        append_c_formatted(result_.text, c_spec(spec, "ll", 'd'), value);
    }

    void convert_unsigned(char conversion, const conversion_spec& spec) {
        unsigned long long value = 0;
        if (is_64_bit(spec.size)) {
            value = static_cast<unsigned long long>(args_.next_long_long());
        } else {
            const auto raw = static_cast<unsigned int>(args_.next_int());
            value = spec.size == size_prefix::hh  ? static_cast<unsigned char>(raw)
                    : spec.size == size_prefix::h ? static_cast<unsigned short>(raw)
                                                  : raw;
        }
        append_c_formatted(result_.text, c_spec(spec, "ll", conversion), value);
    }

    void convert_char(bool upper_case, const conversion_spec& spec) {
        const int raw = args_.next_int();
        char16_t unit = 0;
        if (reads_wide(upper_case, spec.size)) {
            note_wide();
            unit = static_cast<char16_t>(raw);
        } else {
            unit = ansi_to_unicode(static_cast<unsigned char>(raw));
        }
        append_padded(result_.text, std::u16string_view(&unit, 1), spec);
    }

    void convert_string(bool upper_case, const conversion_spec& spec) {
        const void* pointer = args_.next_pointer();
        const bool wide = reads_wide(upper_case, spec.size);
        if (wide) {
            note_wide();
        }
        if (pointer == nullptr) {
            append_padded(result_.text,
                          std::u16string_view(k_null).substr(0, precision_limit(spec)), spec);
            return;
        }
        const std::u16string body =
            wide ? wide_text(static_cast<const char16_t*>(pointer), spec.precision)
                 : narrow_text(static_cast<const char*>(pointer), spec.precision);
        append_padded(result_.text, body, spec);
    }

    void convert_counted_string(const conversion_spec& spec) {
        const void* pointer = args_.next_pointer();
        bool wide = wide_family_;
        if (spec.size == size_prefix::h) {
            wide = false;
        } else if (spec.size == size_prefix::w || spec.size == size_prefix::l) {
            wide = true;
        }
        std::u16string body;
        if (wide) {
            note_wide();
            const auto* text = static_cast<const UNICODE_STRING*>(pointer);
            if (text == nullptr || text->Buffer == nullptr) {
                body = k_null;
            } else {
                body.assign(text->Buffer, text->Length / sizeof(WCHAR));
            }
        } else {
            const auto* text = static_cast<const ANSI_STRING*>(pointer);
            if (text == nullptr || text->Buffer == nullptr) {
                body = k_null;
            } else {
                body = ansi_to_unicode(std::string_view(text->Buffer, text->Length));
            }
        }
        if (spec.precision >= 0 && body.size() > static_cast<std::size_t>(spec.precision)) {
            body.resize(static_cast<std::size_t>(spec.precision));
        }
        append_padded(result_.text, body, spec);
    }

    void convert_pointer(const conversion_spec& spec) {
        const auto value = reinterpret_cast<std::uintptr_t>(args_.next_pointer());
        // The Microsoft CRT prints all 16 digits of an x64 pointer in upper case, without 0x.
        char digits[32];
        std::snprintf(digits, sizeof(digits), "%s%016llX", spec.alternate ? "0X" : "",
                      static_cast<unsigned long long>(value));
        conversion_spec padding = spec;
        padding.zero = false;
        append_padded(result_.text, ansi_to_unicode(digits), padding);
    }

    void convert_floating(char conversion, const conversion_spec& spec) {
        if (spec.size == size_prefix::long_double) {
            append_c_formatted(result_.text, c_spec(spec, "L", conversion),
                               args_.next_long_double());
        } else {
            append_c_formatted(result_.text, c_spec(spec, "", conversion), args_.next_double());
        }
    }

    static std::size_t precision_limit(const conversion_spec& spec) {
        return spec.precision >= 0 ? static_cast<std::size_t>(spec.precision)
                                   : std::u16string::npos;
    }

    bool wide_family_;
    arguments args_;
    formatted result_;
};

}  // namespace

formatted format_windows(const char* format, std::va_list args) {
    return formatter(false, args).run(format);
}

formatted format_windows(const char16_t* format, std::va_list args) {
    return formatter(true, args).run(format);
}

}  // namespace ndksim::kernel
