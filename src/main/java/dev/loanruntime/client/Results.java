package dev.loanruntime.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** Reads and writes the measurement JSON files. Blocks on file I/O; thread-safe. */
public final class Results {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Results() {
    }

    public static void write(Path file, Object report) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            MAPPER.writeValue(file.toFile(), report);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** The file's JSON tree; the error, one line, names the file and where in it the JSON broke. */
    public static JsonNode read(Path file) {
        try {
            return MAPPER.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            // Jackson's own message adds the location on a second line: a usage error is one line.
            JsonLocation at = e.getLocation();
            throw new IllegalArgumentException("cannot read measurement JSON " + file + ": " + e.getOriginalMessage()
                    + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read measurement JSON " + file + ": " + e.getMessage());
        }
    }
}
