package dev.loanruntime.store;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static dev.loanruntime.store.StoreUri.bad;

/**
 * Parses the network forms of {@link StoreUri}: {@code redis[s]://[USER:PASSWORD@]HOST[:PORT][/DB]},
 * {@code redis-sentinel://[USER:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/MASTER[/DB]} and
 * {@code postgresql://[USER:PASSWORD@]HOST[:PORT]/DB}. Written by hand rather than with {@link java.net.URI}, which
 * cannot hold a list of hosts. USER and PASSWORD may be %-escaped.
 */
final class StoreUris {
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+]");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+");

    private StoreUris() {
    }

    static StoreUri.Redis redis(String value, String text, Map<String, String> env) {
        boolean tls = text.startsWith("rediss://");
        Parts parts = Parts.split(value, text.substring(text.indexOf("://") + 3));
        if (parts.hosts.contains(",")) {
            throw bad(value, "one HOST:PORT; several are for redis-sentinel://");
        }
        StoreUri.Address address = address(value, parts.hosts, StoreUri.Redis.DEFAULT_PORT);
        String path = parts.path;
        int database = path.isEmpty() || path.equals("/") ? 0 : database(value, path.substring(1));
        return new StoreUri.Redis(address.host(), address.port(), database, tls, StoreAuth.of(parts.userInfo, env));
    }

    static StoreUri.Sentinel sentinel(String value, String text, Map<String, String> env) {
        Parts parts = Parts.split(value, text.substring("redis-sentinel://".length()));
        List<StoreUri.Address> sentinels = new ArrayList<>();
        for (String hostPort : parts.hosts.split(",", -1)) {
            sentinels.add(address(value, hostPort, StoreUri.Sentinel.DEFAULT_PORT));
        }
        String[] path = parts.path.isEmpty() ? new String[0] : parts.path.substring(1).split("/", -1);
        if (path.length < 1 || path.length > 2 || !NAME.matcher(path[0]).matches()) {
            throw bad(value, "redis-sentinel needs /MASTER, the name the Sentinels monitor it by, then an optional "
                    + "/DB");
        }
        int database = path.length == 2 ? database(value, path[1]) : 0;
        return new StoreUri.Sentinel(sentinels, path[0], database, StoreAuth.of(parts.userInfo, env),
                StoreAuth.blankToNull(env.get(StoreAuth.SENTINEL_PASSWORD_ENV)));
    }

    static StoreUri.Postgres postgres(String value, String text, Map<String, String> env) {
        Parts parts = Parts.split(value, text.substring("postgresql://".length()));
        if (parts.hosts.contains(",")) {
            throw bad(value, "one HOST:PORT");
        }
        StoreUri.Address address = address(value, parts.hosts, StoreUri.Postgres.DEFAULT_PORT);
        String database = parts.path.isEmpty() ? "" : parts.path.substring(1);
        if (!NAME.matcher(database).matches()) {
            throw bad(value, "postgresql needs /DB, the database's name");
        }
        return new StoreUri.Postgres(address.host(), address.port(), database, StoreAuth.of(parts.userInfo, env));
    }

    /** {@code value} with the password of a {@code scheme://USER:PASSWORD@...} masked, for error messages. */
    static String masked(String value) {
        if (value == null) {
            return null;
        }
        int start = value.indexOf("://");
        int at = value.lastIndexOf('@');
        if (start < 0 || at < start) {
            return value;
        }
        int colon = value.indexOf(':', start + 3);
        return colon < 0 || colon > at ? value : value.substring(0, colon + 1) + "***" + value.substring(at);
    }

    private static StoreUri.Address address(String value, String hostPort, int defaultPort) {
        int colon = hostPort.lastIndexOf(':');
        boolean hasPort = colon >= 0 && !hostPort.endsWith("]");
        String host = hasPort ? hostPort.substring(0, colon) : hostPort;
        if (!HOST.matcher(host).matches()) {
            throw bad(value, "'" + hostPort + "' is not HOST:PORT");
        }
        int port = defaultPort;
        if (hasPort) {
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw bad(value, "PORT must be from 1 to 65535");
            }
        }
        if (port < 1 || port > 65_535) {
            throw bad(value, "PORT must be from 1 to 65535");
        }
        return new StoreUri.Address(host, port);
    }

    private static int database(String value, String text) {
        try {
            int database = Integer.parseInt(text);
            if (database >= 0) {
                return database;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw bad(value, "DB must be a database number");
    }

    /** {@code [USERINFO@]HOSTS[/PATH]}, user info decoded; no query or fragment. */
    private record Parts(String userInfo, String hosts, String path) {
        static Parts split(String value, String rest) {
            if (rest.contains("?") || rest.contains("#")) {
                throw bad(value, "no ?query or #fragment: passwords come from the URI's user part or "
                        + StoreAuth.PASSWORD_ENV + ", the Sentinels' from " + StoreAuth.SENTINEL_PASSWORD_ENV);
            }
            int at = rest.lastIndexOf('@');
            String userInfo = at < 0 ? null : decode(value, rest.substring(0, at));
            String authority = at < 0 ? rest : rest.substring(at + 1);
            int slash = authority.indexOf('/');
            String hosts = slash < 0 ? authority : authority.substring(0, slash);
            if (hosts.isEmpty()) {
                throw bad(value, "no HOST");
            }
            return new Parts(userInfo, hosts, slash < 0 ? "" : authority.substring(slash));
        }

        private static String decode(String value, String text) {
            try {
                return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw bad(value, "a bad %-escape in USER:PASSWORD");
            }
        }
    }
}
