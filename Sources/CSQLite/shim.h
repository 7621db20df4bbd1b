#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro that casts -1 to a destructor pointer, which Swift cannot import;
/// passing it makes SQLite copy a bound value before the bind call returns.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_db_config is variadic; this wrapper sets one boolean option and reports the result.
static inline int csqlite_db_config_bool(sqlite3 *db, int option, int enabled) {
    int result = 0;
    return sqlite3_db_config(db, option, enabled, &result);
}

#endif
