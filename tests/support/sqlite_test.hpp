// A bare SQLite connection for tests that change a recording the way another program (or an older
// Actorscope) would have: dropping a column, setting an older format number.
#pragma once

#include <sqlite3.h>

#include <filesystem>

class Sqlite {
 public:
  explicit Sqlite(const std::filesystem::path& file) { sqlite3_open(file.c_str(), &db_); }
  ~Sqlite() { sqlite3_close_v2(db_); }
  Sqlite(const Sqlite&) = delete;
  Sqlite& operator=(const Sqlite&) = delete;
  bool exec(const char* sql) { return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }

 private:
  sqlite3* db_ = nullptr;
};
