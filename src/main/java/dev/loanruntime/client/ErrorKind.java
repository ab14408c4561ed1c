package dev.loanruntime.client;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.io.IOException;

import dev.loanruntime.settings.Labelled;

/** Why a request got no HTTP response. Responses with an error status are counted by status code instead. */
enum ErrorKind implements Labelled {
    /** The TCP connection could not be opened (refused, no route, unknown host, connect timeout). */
    CONNECT,
    /** Connected, but no response within the read timeout. */
    TIMEOUT,
    /** The connection was closed or reset before the response was complete. */
    CLOSED,
    /** Anything else (a bug, a malformed response). */
    OTHER;

    /** The kind of a failure thrown by the client, found by walking its causes. */
    static ErrorKind of(Throwable failure) {
        boolean io = false;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof NoRouteToHostException
                    || t instanceof UnknownHostException) {
                return CONNECT;
            }
            if (t instanceof SocketTimeoutException) {
                String message = String.valueOf(t.getMessage()).toLowerCase();
                return message.contains("connect") ? CONNECT : TIMEOUT;
            }
            io |= t instanceof IOException;
            if (t.getCause() == t) {
                break;
            }
        }
        return io ? CLOSED : OTHER;
    }
}
