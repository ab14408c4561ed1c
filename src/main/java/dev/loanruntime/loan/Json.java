package dev.loanruntime.loan;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;

/** Sends JSON bodies (serialized by Helidon's Jackson media support) with an explicit UTF-8 content type. */
public final class Json {
    /** The content type of every body this service sends. */
    public static final String CONTENT_TYPE = "application/json; charset=utf-8";

    private Json() {
    }

    /** Sends {@code body} with status 200. */
    public static void send(ServerResponse res, Object body) {
        send(res, Status.OK_200, body);
    }

    /** Sends {@code body} with {@code status}. */
    public static void send(ServerResponse res, Status status, Object body) {
        res.status(status);
        res.header(HeaderNames.CONTENT_TYPE, CONTENT_TYPE);
        res.send(body);
    }

    /** An error body: {@code {"error": code}}, plus a human-readable message when there is one. */
    public record Error(String error, @JsonInclude(JsonInclude.Include.NON_NULL) String message) {
        public static Error of(String code) {
            return new Error(code, null);
        }
    }
}
