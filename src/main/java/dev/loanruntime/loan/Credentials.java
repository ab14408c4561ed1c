package dev.loanruntime.loan;

import java.io.IOException;
import java.io.InputStream;

import io.helidon.common.buffers.DataReader;
import io.helidon.http.RequestException;
import io.helidon.http.Status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A login body, {@code {"member": "...", "password": "..."}}, read with a size bound and checked field by field. */
record Credentials(String member, String password) {
    /** Larger bodies are refused before parsing. */
    static final int MAX_BODY_BYTES = 4096;
    static final int MAX_FIELD_CHARS = 256;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Override
    public String toString() {
        return "Credentials[member=" + member + ", password=<hidden>]";
    }

    /** Reads and validates the body; blocks while it arrives. */
    static Credentials parse(InputStream body) throws IOException {
        byte[] bytes;
        try {
            bytes = body.readNBytes(MAX_BODY_BYTES + 1);
        } catch (NumberFormatException | DataReader.IncorrectNewLineException | RequestException e) {
            // Helidon decodes a chunked body while it is read: a chunk size that is not hexadecimal, a chunk line
            // with a bare CR, or a last chunk not followed by an empty line is the client's framing, not a fault of
            // the server. (A body that ends early is answered by ErrorResponses.)
            throw new Invalid(Status.BAD_REQUEST_400, "bad_chunked_body", "the body's chunked framing is malformed");
        }
        if (bytes.length > MAX_BODY_BYTES) {
            throw new Invalid(Status.REQUEST_ENTITY_TOO_LARGE_413, "body_too_large",
                    "the body must be at most " + MAX_BODY_BYTES + " bytes");
        }
        JsonNode json;
        try {
            json = MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new Invalid(Status.BAD_REQUEST_400, "bad_json", "the body is not valid JSON");
        }
        if (json == null || !json.isObject()) {
            throw new Invalid(Status.BAD_REQUEST_400, "bad_json",
                    "the body must be a JSON object with fields 'member' and 'password'");
        }
        return new Credentials(field(json, "member"), field(json, "password"));
    }

    private static String field(JsonNode json, String name) {
        JsonNode value = json.get(name);
        if (value == null || value.isNull()) {
            throw new Invalid(Status.BAD_REQUEST_400, "missing_field", "field '" + name + "' is required");
        }
        if (!value.isTextual() || value.asText().isEmpty() || value.asText().length() > MAX_FIELD_CHARS) {
            throw new Invalid(Status.BAD_REQUEST_400, "bad_field",
                    "field '" + name + "' must be a string of 1 to " + MAX_FIELD_CHARS + " characters");
        }
        return value.asText();
    }

    /** Why a body was refused: the status, a code and a message that names the field. */
    static final class Invalid extends RuntimeException {
        private static final long serialVersionUID = 1L;
        // transient: an exception that never leaves this process, carrying Helidon's (not serializable) Status
        private final transient Status status;
        private final String code;

        Invalid(Status status, String code, String message) {
            super(message, null, false, false);
            this.status = status;
            this.code = code;
        }

        Status status() {
            return status;
        }

        String code() {
            return code;
        }
    }
}
