package dev.loanruntime.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A few Redis commands over one short connection, outside the client under test: to see a server the way an
 * operator does ({@code INFO}, {@code SENTINEL ...}), to check that it answers, to empty a database. Replies are read
 * whole: a status or error line as its text ({@code +OK}, {@code -WRONGPASS ...}), an integer as {@link Long}, a bulk
 * string as {@link String}, an array as a {@link List}, nil as null. Blocks up to a second per reply.
 */
public final class Resp {
    private Resp() {
    }

    /** Logs in with {@code password} (when not null), then sends {@code commands}; their replies, in order. */
    public static List<Object> call(String host, int port, String password, List<List<String>> commands)
            throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1000);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            if (password != null) {
                write(out, List.of("AUTH", password));
                Object auth = read(in);
                if (!"+OK".equals(auth)) {
                    throw new IOException("AUTH on port " + port + " answered " + auth);
                }
            }
            List<Object> replies = new ArrayList<>();
            for (List<String> command : commands) {
                write(out, command);
                replies.add(read(in));
            }
            return replies;
        }
    }

    /** One command's reply. */
    public static Object one(String host, int port, String password, String... command) throws IOException {
        return call(host, port, password, List.of(List.of(command))).get(0);
    }

    /** Whether a Redis that needs no password answers PING there. */
    public static boolean answers(String host, int port) {
        try {
            return "+PONG".equals(one(host, port, null, "PING"));
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code field:value} from an {@code INFO} section, or null. */
    public static String info(String host, int port, String password, String section, String field)
            throws IOException {
        Object text = one(host, port, password, "INFO", section);
        for (String line : String.valueOf(text).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return null;
    }

    private static void write(OutputStream out, List<String> command) throws IOException {
        StringBuilder text = new StringBuilder("*").append(command.size()).append("\r\n");
        for (String part : command) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            text.append('$').append(bytes.length).append("\r\n").append(part).append("\r\n");
        }
        out.write(text.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static Object read(InputStream in) throws IOException {
        String line = line(in);
        return switch (line.charAt(0)) {
            case '+', '-' -> line;
            case ':' -> Long.parseLong(line.substring(1));
            case '$' -> {
                int length = Integer.parseInt(line.substring(1));
                if (length < 0) {
                    yield null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                yield new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*' -> {
                int count = Integer.parseInt(line.substring(1));
                if (count < 0) {
                    yield null;
                }
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                yield items;
            }
            default -> throw new IOException("not a RESP reply: " + line);
        };
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("redis closed the connection");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }
}
