package dev.loanruntime.store;

import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;

class SqliteStateAcrossProcessesIT extends StateAcrossProcessesContract {
    @TempDir
    static Path dir;

    @Override
    String store() {
        // A new file in a new directory: the three processes create it together on first use.
        return "sqlite:" + dir.resolve("loans.db");
    }

    @Override
    boolean shared() {
        return true;
    }
}
