// Hostile variants of real torch fixtures for the hardening tests (issue 17): an archive
// copied with one member replaced, or with one stored byte flipped. The archives stay
// torch's own; only the named change is made.
#pragma once

#include <gtest/gtest.h>
#include <zip.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tir::testing {

/// The full name of the member of `zip_path` whose name ends with `suffix`.
inline std::string pt2_member_name(const std::string& zip_path, const std::string& suffix) {
  int err = 0;
  zip_t* z = zip_open(zip_path.c_str(), ZIP_RDONLY, &err);
  EXPECT_NE(z, nullptr) << zip_path;
  std::string found;
  for (zip_int64_t i = 0; z && i < zip_get_num_entries(z, 0); ++i) {
    const std::string name = zip_get_name(z, i, 0);
    if (name.size() >= suffix.size() && name.ends_with(suffix)) found = name;
  }
  if (z) zip_discard(z);
  EXPECT_FALSE(found.empty()) << "no member *" << suffix << " in " << zip_path;
  return found;
}

/// The bytes of member *`suffix` of `zip_path`.
inline std::string pt2_read_member(const std::string& zip_path, const std::string& suffix) {
  const std::string name = pt2_member_name(zip_path, suffix);
  int err = 0;
  zip_t* z = zip_open(zip_path.c_str(), ZIP_RDONLY, &err);
  zip_stat_t st;
  zip_stat(z, name.c_str(), 0, &st);
  std::string out(st.size, '\0');
  zip_file_t* f = zip_fopen(z, name.c_str(), 0);
  EXPECT_EQ(zip_fread(f, out.data(), out.size()), zip_int64_t(out.size()));
  zip_fclose(f);
  zip_discard(z);
  return out;
}

/// Copies `src` to `dst` with member *`suffix` holding `bytes` instead.
inline void pt2_replace_member(const std::string& src, const std::string& dst,
                               const std::string& suffix, const std::string& bytes) {
  std::filesystem::copy_file(src, dst, std::filesystem::copy_options::overwrite_existing);
  const std::string name = pt2_member_name(dst, suffix);
  int err = 0;
  zip_t* z = zip_open(dst.c_str(), 0, &err);
  ASSERT_NE(z, nullptr);
  zip_source_t* s = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
  ASSERT_GE(zip_file_add(z, name.c_str(), s, ZIP_FL_OVERWRITE), 0);
  ASSERT_EQ(zip_close(z), 0);
}

/// Copies `src` to `dst` with one byte of stored member *`suffix` flipped in place (its
/// CRC-32 in the zip directory unchanged), as a bad disk or download would.
inline void pt2_flip_stored_byte(const std::string& src, const std::string& dst,
                                 const std::string& suffix, size_t at) {
  std::ifstream in(src, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string b = ss.str();
  const std::string name = pt2_member_name(src, suffix);
  // Local file header: "PK\3\4", name length at 26, extra length at 28, name at 30.
  size_t pos = 0, data = std::string::npos;
  while ((pos = b.find("PK\x03\x04", pos)) != std::string::npos) {
    const size_t n = uint8_t(b[pos + 26]) | uint8_t(b[pos + 27]) << 8;
    const size_t x = uint8_t(b[pos + 28]) | uint8_t(b[pos + 29]) << 8;
    if (b.compare(pos + 30, n, name) == 0) {
      data = pos + 30 + n + x;
      break;
    }
    pos += 4;
  }
  ASSERT_NE(data, std::string::npos) << name;
  b[data + at] = char(b[data + at] ^ 0x40);
  std::ofstream(dst, std::ios::binary) << b;
}

}  // namespace tir::testing
