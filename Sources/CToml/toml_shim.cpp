// SPDX-License-Identifier: GPL-3.0-or-later
// The C interface of practice_toml.h over Debian's toml++ (libtomlplusplus-dev).
#include "practice_toml.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
#include <toml++/toml.h>

extern "C" char *practice_toml_to_json(const char *text, size_t length, practice_toml_error *error) {
    std::memset(error, 0, sizeof *error);
    try {
        toml::table table = toml::parse(std::string_view(text, length));
        std::ostringstream out;
        out << toml::json_formatter(table);
        const std::string json = out.str();
        char *copy = static_cast<char *>(std::malloc(json.size() + 1));
        if (!copy) {
            std::snprintf(error->message, sizeof error->message, "out of memory");
            return nullptr;
        }
        std::memcpy(copy, json.c_str(), json.size() + 1);
        return copy;
    } catch (const toml::parse_error &e) {
        std::snprintf(error->message, sizeof error->message, "%.*s", static_cast<int>(e.description().size()),
                      e.description().data());
        error->line = static_cast<int>(e.source().begin.line);
        error->column = static_cast<int>(e.source().begin.column);
    } catch (const std::exception &e) {
        std::snprintf(error->message, sizeof error->message, "%s", e.what());
    } catch (...) {
        std::snprintf(error->message, sizeof error->message, "toml++ failed");
    }
    return nullptr;
}

extern "C" void practice_toml_free(char *json) { std::free(json); }

extern "C" int practice_toml_value_region(const char *text, size_t length, const char *key, practice_toml_region *out) {
    std::memset(out, 0, sizeof *out);
    try {
        toml::table table = toml::parse(std::string_view(text, length));
        toml::node *node = table.at_path(key).node();
        if (node == nullptr) return 0;
        const toml::source_region &r = node->source();
        out->begin_line = static_cast<int>(r.begin.line);
        out->begin_column = static_cast<int>(r.begin.column);
        out->end_line = static_cast<int>(r.end.line);
        out->end_column = static_cast<int>(r.end.column);
        return 1;
    } catch (...) {
        return -1;
    }
}
