package dev.loanruntime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The one-statement steps the SQL stores share; each runs on the caller's thread and blocks on the database. */
final class Sql {
    private Sql() {
    }

    /** The one number {@code sql} selects. */
    static long queryLong(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql);
             ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("no row for: " + sql);
            }
            return rs.getLong(1);
        }
    }

    /** Runs {@code sql} with the text {@code parameters}; returns null, for an operation that answers nothing. */
    static Void update(Connection connection, String sql, String... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setString(i + 1, parameters[i]);
            }
            statement.executeUpdate();
        }
        return null;
    }
}
