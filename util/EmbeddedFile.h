#pragma once
// A file's text compiled into the binary (cmake/Embed.cmake), so the binary needs no source tree: the
// hardware presets, the experiment definitions and the bundled traces.
namespace steprdu {

struct EmbeddedFile {
    const char* name; // the file's name (without its extension, unless the embedding keeps it)
    const char* text;
};

} // namespace steprdu
